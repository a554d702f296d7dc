import type { IntentJob } from './intent-job.js';
import type { IntentQueue } from './intent-queue.js';
import type { IntentJobSink, RunPhaseNote } from './distributed-executor.js';
import { laneHost, type LaneNote } from './lanes.js';

/**
 * The coordinator's side of a run's lane (docs/distributed.md, "Several conferences"): its jobs
 * go onto the lane of its platform key; what an earlier pass left is looked for there and on the
 * shared queue of releases before lanes, so that a resume of a run started before the upgrade
 * withdraws its old jobs and waits for those workers hold.
 */
export class LaneSink implements IntentJobSink {
  constructor(
    private readonly lane: IntentQueue,
    private readonly shared: IntentQueue,
    private readonly note: LaneNote,
  ) {}

  enqueue(jobs: readonly IntentJob[]): Promise<void> {
    return this.lane.enqueue(jobs);
  }

  notePhase(runId: string, phase: RunPhaseNote): Promise<void> {
    return this.lane.notePhase(runId, phase);
  }

  async withdrawRun(runId: string): Promise<number> {
    return (await this.lane.withdrawRun(runId)) + (await this.shared.withdrawRun(runId));
  }

  /** The lane's jobs: a pass enqueues only there, so only there can its jobs be lost. */
  outstanding(): Promise<number> {
    return this.lane.outstanding();
  }

  async activeOf(runId: string): Promise<number> {
    return (await this.lane.activeOf(runId)) + (await this.shared.activeOf(runId));
  }

  /** Every worker alive listens on the shared queue, whatever lanes it serves. */
  workers(): Promise<number> {
    return this.shared.workers();
  }

  async unserved(): Promise<string | undefined> {
    if ((await this.lane.workers()) > 0) return undefined;
    const alive = await this.shared.workers();
    // No worker at all: the run waits for one to start, as it always has.
    if (alive === 0) return undefined;
    const names = this.note.variables
      .map((v) => `${v.base_url_env}, ${v.key_id_env}, ${v.signing_key_env}`)
      .join(' or ');
    // A worker may set those names to another key id or URL: what counts is the key they hold.
    return (
      `no worker serves the lane of ${laneHost(this.note)} (key ${this.note.keyId}): ` +
      `${alive === 1 ? 'the worker connected does not hold' : `none of the ${alive} workers connected holds`} that key ` +
      `(its variables ${names}, set to that base URL and key id)`
    );
  }
}
