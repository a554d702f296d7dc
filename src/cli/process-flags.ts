import { setFlagsFromString } from 'node:v8';

/**
 * V8 settings of every evsync process, set before anything is loaded (main.ts imports this
 * first). undici parses the platform's answers with llhttp compiled to WebAssembly; V8
 * compiles it at once with Liftoff and again, in the background, with TurboFan, whose
 * compile leaves 25–35 MiB resident in a process that calls the platform (a third of the
 * demo's Node process). Liftoff alone parses our answers at the same CPU cost
 * (docs/ledger.md, "Memory of a process").
 */
setFlagsFromString('--liftoff-only');
