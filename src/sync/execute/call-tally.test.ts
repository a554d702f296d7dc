import { describe, expect, it } from 'vitest';
import { noteCall, runCalls } from '../../metrics/process-metrics.js';
import { CallTally } from './call-tally.js';

type Rows = Array<{ runId: string; outcome: string; calls: number }>;

function tallyOf(defaultRunId?: string): { tally: CallTally; rows: Rows } {
  const rows: Rows = [];
  const ledger = {
    recordCallSeconds: (batch: readonly Rows[number][]) => {
      rows.push(...batch.map(({ runId, outcome, calls }) => ({ runId, outcome, calls })));
      return Promise.resolve();
    },
  };
  return { tally: new CallTally(ledger, defaultRunId === undefined ? {} : { defaultRunId }), rows };
}

describe('CallTally', () => {
  it("counts a run's own calls when runs share the process, and every run's in a worker", async () => {
    const a = tallyOf('run-a');
    const b = tallyOf('run-b');
    const worker = tallyOf();
    runCalls.run('run-a', () => noteCall('2xx', 'POST', 0.01));
    runCalls.run('run-b', () => {
      noteCall('2xx', 'POST', 0.01);
      noteCall('429', 'POST', 0.01);
    });
    // A process of one run tags nothing: its tally takes the call.
    noteCall('5xx', 'PUT', 0.01);
    for (const { tally } of [a, b, worker]) await tally.close();
    expect(a.rows).toEqual([
      { runId: 'run-a', outcome: '2xx', calls: 1 },
      { runId: 'run-a', outcome: '5xx', calls: 1 },
    ]);
    expect(b.rows).toEqual([
      { runId: 'run-b', outcome: '2xx', calls: 1 },
      { runId: 'run-b', outcome: '429', calls: 1 },
      { runId: 'run-b', outcome: '5xx', calls: 1 },
    ]);
    expect(worker.rows).toEqual([
      { runId: 'run-a', outcome: '2xx', calls: 1 },
      { runId: 'run-b', outcome: '2xx', calls: 1 },
      { runId: 'run-b', outcome: '429', calls: 1 },
    ]);
  });
});
