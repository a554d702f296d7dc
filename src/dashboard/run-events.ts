import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { Ledger } from '../ledger/ledger.js';
import type { Logger } from '../log/logger.js';
import type { RunPhaseNote } from '../distributed/distributed-executor.js';
import { totalsOf, type ActionCounts, type RunResultCounts } from '../model/result-records.js';
import { runTook, tookNote } from '../model/run-record.js';
import { requireRun, shownStatus } from './dashboard-data.js';
import type { LiveRuns, PhaseProgress } from './live-progress.js';

/** One `progress` (or, last, `end`) event of a run's stream. */
export interface RunProgressEvent {
  status: string;
  counts: RunResultCounts;
  totals: ActionCounts;
  /** Rows lost for want of data (`RunRecord.lost`): known once the run has ended, 0 before. */
  lost: number;
  /** Results recorded so far, and how many intents the run planned (when it says). */
  done: number;
  planned: number | null;
  /** Per phase, for a run this dashboard started; null for one started elsewhere. */
  phases: PhaseProgress[] | null;
  /** Intents done per second over the last few seconds; null until two events apart. */
  rate: number | null;
  /** How long it took, as its page shows it (`runTook`): to its end, its last result when cut off, or now. */
  durationMs: number;
  /** ` (resumed)`, ` (until cut off)` or '' (`tookNote`). */
  durationNote: string;
  /** How long the server took to make this event. */
  serverMs: number;
}

const RATE_WINDOW_MS = 5000;

export interface RunEventsOptions {
  ledger: Ledger;
  live: LiveRuns;
  /** @defaultValue 1000 */
  intervalMs?: number;
  logger: Logger;
  /** Distributed mode: the phase a run is in, as its `evsync run` notes it in Redis. */
  phaseOf?: ((runId: string) => Promise<RunPhaseNote | undefined>) | undefined;
}

/**
 * `GET /runs/ID/events`: the run's progress as server-sent events, one a second while it
 * runs, then an `end` event and the stream closes. Read from the ledger, so a run that
 * another process (the CLI, a worker) sends is followed as well as one started here.
 */
export function runEvents(
  c: Context,
  runId: string,
  options: RunEventsOptions,
): Promise<Response> | Response {
  const interval = options.intervalMs ?? 1000;
  return streamSSE(
    c,
    async (stream) => {
      // Samples of the last RATE_WINDOW_MS: results land in batches (about one a second), so
      // a rate between two events alone would read 0 and then a burst.
      const samples: Array<{ done: number; at: number }> = [];
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      let id = 0;
      while (!closed) {
        const started = performance.now();
        const run = await requireRun(options.ledger, runId);
        // A run whose process died stays `running` in the ledger: the stream ends as for any end.
        const gone = await options.ledger.processGone(run);
        const counts = await options.ledger.resultCounts(runId);
        const totals = totalsOf(counts);
        const done = Object.values(totals).reduce((sum, n) => sum + (n ?? 0), 0);
        const engine = options.live.phasesOf(runId);
        const phases = engine ?? (await notedPhase(runId, run.status, options.phaseOf));
        // The engine's own count when this process runs it: it moves before the ledger's.
        const moved = engine ? engine.reduce((sum, phase) => sum + phase.done, 0) : done;
        const now = Date.now();
        // A run cut off took until its last result: its time does not go on (`runTook`).
        const took = runTook(
          run,
          gone ? ((await options.ledger.lastResultAt(runId)) ?? run.startedAt) : undefined,
        );
        samples.push({ done: moved, at: now });
        while (samples.length > 2 && now - samples[0]!.at > RATE_WINDOW_MS) samples.shift();
        const oldest = samples[0]!;
        const rate = now > oldest.at ? ((moved - oldest.done) * 1000) / (now - oldest.at) : null;
        const event: RunProgressEvent = {
          status: shownStatus({ status: run.status, processGone: gone }),
          counts,
          totals,
          lost: run.lost ?? 0,
          done,
          planned: typeof run.options.planned === 'number' ? run.options.planned : null,
          phases,
          rate,
          durationMs: took ? took.seconds * 1000 : now - run.startedAt.getTime(),
          durationNote: took ? tookNote(took) : '',
          serverMs: Math.round((performance.now() - started) * 10) / 10,
        };
        const end = run.status !== 'running' || gone;
        await stream.writeSSE({
          event: end ? 'end' : 'progress',
          data: JSON.stringify(event),
          id: String(id++),
        });
        if (end) break;
        await stream.sleep(interval);
      }
    },
    (error) => {
      // The stream has begun: the browser's EventSource sees it end, and tries again.
      options.logger.error({ err: error, runId }, 'live events of a run failed');
      return Promise.resolve();
    },
  );
}

/** A distributed run's current phase, from the note its `evsync run` keeps in Redis. */
async function notedPhase(
  runId: string,
  status: string,
  phaseOf: RunEventsOptions['phaseOf'],
): Promise<PhaseProgress[] | null> {
  if (!phaseOf || status !== 'running') return null;
  const note = await phaseOf(runId);
  return note ? [{ phase: note.phase, total: note.total, done: note.done, failed: 0, ended: false }] : null;
}
