import type { Logger } from '../log/logger.js';
import type { FaultInjector } from './fault-injector.js';
import type { RateLimiter } from './rate-limiter.js';
import type { SandboxCounters } from './sandbox-counters.js';
import type { SandboxState } from './sandbox-state.js';
import type { StateSnapshot } from './state-types.js';
import type { SandboxKey } from './verify-signature.js';

/** Everything a running sandbox holds, shared by the API pipeline and the admin endpoints. */
export interface SandboxRuntime {
  state: SandboxState;
  counters: SandboxCounters;
  faults: FaultInjector;
  rateLimiter: RateLimiter;
  key: SandboxKey;
  vendor: string;
  maxBodyBytes: number;
  logger: Logger;
  /** The state right after seeding (or loading), which `POST /_sandbox/reset` goes back to. */
  initialSnapshot: StateSnapshot;
  /** Writes the `--state` file now; `false` when the sandbox has none. */
  saveState(): Promise<boolean>;
}
