import type { IntentJob } from './intent-job.js';
import type { IntentQueue } from './intent-queue.js';
import type { IntentJobSink, RunPhaseNote, UnservedLane } from './distributed-executor.js';
import { CODE } from '../errors/codes.js';
import type { WorkerConferences } from './worker-notes.js';
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
    /** The notes of the workers alive (`workerConferences`): why some left the lane. */
    private readonly notes?: () => Promise<Map<string, WorkerConferences>>,
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

  async unserved(): Promise<UnservedLane | undefined> {
    if ((await this.lane.workers()) > 0) return undefined;
    const alive = await this.shared.workers();
    // No worker at all: the run waits for one to start, as it always has.
    if (alive === 0) return undefined;
    const host = laneHost(this.note);
    const where = `no worker serves the lane of ${host} (key ${this.note.keyId})`;
    // Workers holding the key whose signature the platform refused left the lane for a while.
    const refused = [...((await this.notes?.()) ?? new Map<string, WorkerConferences>()).values()].flatMap(
      (note) => (note.rejected?.[host] === undefined ? [] : [`${note.worker}: ${note.rejected[host]}`]),
    );
    if (refused.length > 0)
      return {
        reason: `${where}: the platform refused the signature of the workers holding its key (${refused.join('; ')})`,
        code: CODE.EVSYNC_PLATFORM_UNAUTHORIZED,
        advice:
          'Fix the signing key in those workers’ environment (or the key was revoked: evsync doctor JOB tests it)',
      };
    const names = this.note.variables
      .map((v) => `${v.base_url_env}, ${v.key_id_env}, ${v.signing_key_env}`)
      .join(' or ');
    // A worker may set those names to another key id or URL: what counts is the key they hold.
    return {
      reason:
        `${where}: ` +
        `${alive === 1 ? 'the worker connected does not hold' : `none of the ${alive} workers connected holds`} that key ` +
        `(its variables ${names}, set to that base URL and key id)`,
      code: CODE.EVSYNC_CONFERENCE_UNSERVED,
      advice: 'Start a worker whose environment sets them',
    };
  }
}
