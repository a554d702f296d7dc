import { describe, expect, it } from 'vitest';
import type { PruneReport } from '../../sync/prune/prune-runs.js';
import { formatPruneReport } from './prune-output.js';

const empty: PruneReport = {
  dryRun: false,
  runs: [],
  held: [],
  jobs: ['nightly'],
  withoutRetention: [],
  totals: { runs: 0, tables: {}, bytes: 0 },
};

describe('formatPruneReport', () => {
  it('lists each run with rows removed per table, results first, and the totals', () => {
    const text = formatPruneReport({
      ...empty,
      dryRun: true,
      runs: [
        {
          runId: '20261122-014512-7f3a',
          jobName: 'nightly',
          finishedAt: new Date('2026-08-01T02:00:00Z'),
          rule: 'older than 90d',
          tally: {
            tables: { run_intents: { removed: 1200, kept: 35 }, intent_results: { removed: 1199, kept: 35 } },
            bytes: 3 * 1024 * 1024,
          },
        },
      ],
      totals: { runs: 1, tables: { run_intents: 1200, intent_results: 1199 }, bytes: 3 * 1024 * 1024 },
    });
    expect(text).toContain('Would prune 1 run:');
    expect(text).toMatch(/results +planned intents +results kept +rule/);
    expect(text).toMatch(/20261122-014512-7f3a +nightly +2026-08-01 02:00 +1,199 +1,200 +35 +older than 90d/);
    expect(text).toContain('Would remove 1,199 results, 1,200 planned intents: about 3.0 MB of row data.');
  });

  it('says when nothing goes, what stays and which jobs have no retention', () => {
    const text = formatPruneReport({
      ...empty,
      held: [{ runId: 'r1', jobName: 'nightly', reason: 'it is interrupted' }],
      withoutRetention: ['other'],
    });
    expect(text).toContain('Nothing to prune.');
    expect(text).toContain('  r1 (nightly): it is interrupted');
    expect(text).toContain('No retention for other: set `retention:` in the job file');
  });
});
