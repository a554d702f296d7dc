import type { RunRecord } from '../model/run-record.js';

/**
 * The run option a detached run carries from its hand-over until a worker takes it: its
 * status is `interrupted` meanwhile, which `evsync runs` and `status` show as waiting.
 * Apart from the distributed executor, so that reading it loads neither BullMQ nor Redis.
 */
export const HANDED_TO_WORKERS = 'handedToWorkers';

/** A detached run no worker has taken yet (`HANDED_TO_WORKERS`). */
export function waitsForWorker(run: RunRecord): boolean {
  return run.status === 'interrupted' && run.options[HANDED_TO_WORKERS] === true;
}
