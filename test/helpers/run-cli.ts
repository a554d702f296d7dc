import { vi } from 'vitest';
import { main } from '../../src/cli/main.js';

/** What one `evsync …` invocation printed, and the exit code the process would end with. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI in this process, as `bin/evsync` does, capturing what it prints. Faster
 * than spawning (no tsx start-up per command); `process.exitCode` is cleared before and
 * after so that one command's code does not leak into the next, or into the test worker.
 */
export async function runCli(...args: string[]): Promise<CliResult> {
  return runCliWithStdout(undefined, ...args);
}

/** {@link runCli} with standard output written by `write` (one that fails, say) instead of captured. */
export async function runCliWithStdout(
  write: ((chunk: string | Uint8Array) => boolean) | undefined,
  ...args: string[]
): Promise<CliResult> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture =
    (into: string[]) =>
    (chunk: string | Uint8Array): boolean => {
      into.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(write ?? capture(stdout));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture(stderr));
  process.exitCode = undefined;
  try {
    const code = await main(['node', 'evsync', ...args]);
    return { code, stdout: stdout.join(''), stderr: stderr.join('') };
  } finally {
    process.exitCode = undefined;
    out.mockRestore();
    err.mockRestore();
  }
}
