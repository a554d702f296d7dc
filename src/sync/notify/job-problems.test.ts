import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../model/run-record.js';
import { problemsOf, stateKeyOf, type JobFacts } from './job-problems.js';
import { notifySchema } from './notify-settings.js';

const rulesOf = (when: Record<string, unknown>) =>
  notifySchema.parse({ channels: [{ webhook: { url_env: 'HOOK' } }], when }).when;

function run(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    id,
    seq: Number(id.replace(/\D/g, '')) || 1,
    jobName: 'nightly',
    mode: 'upsert',
    status: 'completed',
    startedAt: new Date('2026-11-27T02:00:00Z'),
    finishedAt: new Date('2026-11-27T02:05:00Z'),
    counts: { created: 90, failed: 10 },
    options: {},
    conference: null,
    ...overrides,
  };
}

const facts = (overrides: Partial<JobFacts> = {}): JobFacts => ({
  last: run('r2'),
  lastCutOff: false,
  previousCompleted: undefined,
  lastCompleted: run('r2'),
  now: new Date('2026-11-27T03:00:00Z'),
  ...overrides,
});

describe('problemsOf', () => {
  it('names a run that ended aborted or failed, with its reason, and one cut off', () => {
    const aborted = run('r3', { status: 'aborted', options: { aborted: 'the platform answered 503' } });
    expect(problemsOf(rulesOf({}), facts({ last: aborted }))).toEqual([
      { rule: 'run_failed', text: 'run r3 ended aborted: the platform answered 503' },
    ]);
    const cut = run('r4', { status: 'running', finishedAt: null });
    expect(problemsOf(rulesOf({}), facts({ last: cut, lastCutOff: true }))[0]!.text).toContain(
      'evsync resume r4',
    );
    expect(problemsOf(rulesOf({ run_failed: false }), facts({ last: aborted }))).toEqual([]);
  });

  it('tells failed rows at or over a count or a share, never under', () => {
    expect(stateKeyOf(problemsOf(rulesOf({ failed_rows: 10 }), facts()))).toBe('failed_rows');
    expect(stateKeyOf(problemsOf(rulesOf({ failed_rows: 11 }), facts()))).toBe('');
    expect(stateKeyOf(problemsOf(rulesOf({ failed_rows: '10%' }), facts()))).toBe('failed_rows');
    expect(stateKeyOf(problemsOf(rulesOf({ failed_rows: '10.5%' }), facts()))).toBe('');
  });

  it('tells sources that shrank by the share against the completed run before', () => {
    const rows = (n: number) => ({ stepRows: [{ step: 0, source: './a.csv', rows: n }] });
    const previous = run('r1', { options: rows(100) });
    const rules = rulesOf({ rows_dropped: '30%' });
    expect(
      problemsOf(rules, facts({ last: run('r2', { options: rows(70) }), previousCompleted: previous })),
    ).toEqual([
      {
        rule: 'rows_dropped',
        text: 'run r2 read 70 rows from its sources, 30.0% fewer than the 100 of run r1 (threshold 30%): check the export or query',
      },
    ]);
    expect(
      problemsOf(rules, facts({ last: run('r2', { options: rows(71) }), previousCompleted: previous })),
    ).toEqual([]);
  });

  it('tells a schedule with nothing completed past its period plus grace, unless the run failed', () => {
    const schedule = { cron: '0 2 * * *', timezone: 'Europe/Berlin' };
    const rules = rulesOf({ missed_schedule: { grace: '1h' } });
    const lastCompleted = run('r2', { finishedAt: new Date('2026-11-26T01:05:00Z') });
    const on = (now: string, last = lastCompleted) =>
      stateKeyOf(problemsOf(rules, facts({ last, lastCompleted, schedule, now: new Date(now) })));
    expect(on('2026-11-27T02:04:00Z')).toBe('');
    expect(on('2026-11-27T02:06:00Z')).toBe('missed_schedule');
    expect(on('2026-11-27T02:06:00Z', run('r3', { status: 'aborted' }))).toBe('run_failed');
    expect(
      stateKeyOf(
        problemsOf(rulesOf({}), facts({ lastCompleted, schedule, now: new Date('2026-11-28T00:00:00Z') })),
      ),
    ).toBe('');
  });
});
