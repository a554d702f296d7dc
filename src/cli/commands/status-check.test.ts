import { describe, expect, it } from 'vitest';
import type { JobOverview } from '../../sync/notify/job-overview.js';
import { checkJobs } from './status-check.js';
import { displayZone, formatStatus } from './status.js';

const job = (overrides: Partial<JobOverview> = {}): JobOverview => ({
  job: 'nightly',
  conference: 'myconf.example.com',
  lastRun: {
    id: 'r5',
    status: 'completed',
    shownStatus: 'completed',
    trigger: 'schedule',
    startedAt: '2026-11-28T21:50:00Z',
    finishedAt: '2026-11-28T21:50:05Z',
    counts: { unchanged: 74 },
    lost: 0,
  },
  lastSuccess: { id: 'r5', finishedAt: '2026-11-28T21:50:05Z' },
  sinceSuccess: null,
  schedule: { cron: '*/1 * * * *', timezone: 'Europe/Berlin' },
  next: '2026-11-28T21:51:00Z',
  timezone: 'Europe/Berlin',
  overdue: false,
  notify: null,
  ...overrides,
});

describe('evsync status --check', () => {
  it('is well when every job is', () => {
    expect(checkJobs([job()], 'Europe/Berlin')).toEqual({
      ok: true,
      line: 'OK 1 job on time and well; newest run r5 (nightly) completed at 2026-11-28 22:50',
    });
    const later = job({
      job: 'people',
      lastRun: { ...job().lastRun!, id: 'r7', finishedAt: '2026-11-28T23:10:00Z' },
    });
    expect(checkJobs([job(), later], 'Europe/Berlin').line).toBe(
      'OK 2 jobs on time and well; newest run r7 (people) completed at 2026-11-29 00:10',
    );
    expect(checkJobs([], 'Europe/Berlin').line).toBe('OK 0 jobs on time and well');
  });

  it('names the newest run that ended while a tick runs, and the running tick beside it', () => {
    // A schedule every few seconds: the check often reads while the next tick runs.
    const ticking = job({
      lastRun: { ...job().lastRun!, id: 'r6', status: 'running', shownStatus: 'running', finishedAt: null },
      lastSuccess: { id: 'r5', finishedAt: '2026-11-28T21:50:05Z' },
    });
    expect(checkJobs([ticking], 'Europe/Berlin')).toEqual({
      ok: true,
      line:
        'OK 1 job on time and well; newest run r5 (nightly) completed at 2026-11-28 22:50; ' +
        'run r6 (nightly) running since 2026-11-28 22:50',
    });
    const first = job({ lastRun: ticking.lastRun, lastSuccess: null });
    expect(checkJobs([first], 'UTC').line).toBe(
      'OK 1 job on time and well; run r6 (nightly) running since 2026-11-28 21:50',
    );
  });

  it('names no older success as the newest run that ended when a run failed since', () => {
    const ticking = job({
      lastRun: { ...job().lastRun!, id: 'r7', status: 'running', shownStatus: 'running', finishedAt: null },
      lastSuccess: { id: 'r5', finishedAt: '2026-11-28T21:50:05Z' },
      sinceSuccess: {
        count: 1,
        byStatus: [{ status: 'aborted', count: 1 }],
        first: '2026-11-28T21:51:00Z',
        last: '2026-11-28T21:51:00Z',
      },
    });
    expect(checkJobs([ticking], 'Europe/Berlin').line).toBe(
      'OK 1 job on time and well; run r7 (nightly) running since 2026-11-28 22:50, after 1 run aborted at 22:51',
    );
  });

  it('does not call well a job whose last run completed with failed rows', () => {
    const failedRows = job({ lastRun: { ...job().lastRun!, counts: { created: 7, failed: 3 } } });
    expect(checkJobs([failedRows], 'Europe/Berlin')).toEqual({
      ok: true,
      line: 'OK 1 job on time, rows not synced in the last run of nightly (3 failed); newest run r5 (nightly) completed at 2026-11-28 22:50',
    });
  });

  it('does not call well a job whose last run lost rows for want of data', () => {
    const lostRows = job({ lastRun: { ...job().lastRun!, counts: { created: 7, skipped: 2 }, lost: 2 } });
    expect(checkJobs([lostRows], 'Europe/Berlin').line).toBe(
      'OK 1 job on time, rows not synced in the last run of nightly (2 lost); newest run r5 (nightly) completed at 2026-11-28 22:50',
    );
  });

  it('does not call well a job whose last run a person stopped, and says how to finish it', () => {
    const interrupted = { ...job().lastRun!, status: 'interrupted', shownStatus: 'interrupted' };
    const stopped = job({ lastRun: { ...interrupted, counts: { created: 40 } } });
    // A person's stop is no problem (run_failed does not tell it either): exit 0, not "well".
    expect(checkJobs([stopped], 'Europe/Berlin')).toEqual({
      ok: true,
      line:
        'OK 1 job on time, the last run of nightly stopped before its end (interrupted; finish it with: evsync resume r5); ' +
        'newest run r5 (nightly) interrupted at 2026-11-28 22:50',
    });
    const failedToo = job({
      job: 'people',
      lastRun: { ...interrupted, id: 'r6', counts: { created: 7, failed: 3 } },
    });
    const failedRows = job({ job: 'talks', lastRun: { ...job().lastRun!, counts: { failed: 2 } } });
    expect(checkJobs([stopped, failedToo, failedRows], 'UTC').line).toMatch(
      /^OK 3 jobs on time, rows not synced in the last run of talks \(2 failed\), the last run of nightly stopped before its end \(interrupted; finish it with: evsync resume r5\), the last run of people stopped before its end \(interrupted, 3 failed; finish it with: evsync resume r6\); newest run /,
    );
  });

  it('calls well a job whose detached run waits for a worker: nobody stopped it', () => {
    const detached = { ...job().lastRun!, status: 'interrupted', shownStatus: 'waiting for a worker' };
    expect(checkJobs([job({ lastRun: detached })], 'UTC').line).toMatch(/^OK 1 job on time and well; /);
  });

  it('says in one line which job is overdue or failing', () => {
    const failing = job({
      job: 'people',
      lastRun: { ...job().lastRun!, id: 'r9', status: 'aborted', shownStatus: 'aborted' },
      sinceSuccess: {
        count: 4,
        byStatus: [{ status: 'aborted', count: 4 }],
        first: '2026-11-28T21:42:00Z',
        last: '2026-11-28T21:46:00Z',
      },
    });
    const check = checkJobs([job({ overdue: true }), failing], 'Europe/Berlin');
    expect(check.ok).toBe(false);
    expect(check.line).toBe(
      'PROBLEM nightly: overdue (last success 2026-11-28 22:50) | people: last run r9 aborted, 4 runs aborted from 22:42 to 22:46',
    );
    expect(check.line).not.toContain('\n');
  });

  it('tells a notice that was not delivered', () => {
    const undelivered = job({
      notify: {
        state: 'ok',
        problems: [],
        since: '2026-11-28T21:00:00Z',
        undelivered: [
          {
            channel: 'email to ops@example.org',
            error: 'refused',
            attempts: 2,
            event: 'problem',
            at: '2026-11-28T21:00:00Z',
          },
        ],
      },
    });
    expect(checkJobs([undelivered], 'UTC').line).toContain('notice not delivered (email to ops@example.org)');
  });
});

describe('evsync status', () => {
  it('shows one zone throughout, what happened since the last success, and a past "next" as missed', () => {
    const text = formatStatus(
      undefined,
      [
        job({
          overdue: true,
          next: '2026-11-28T21:47:00Z',
          sinceSuccess: {
            count: 4,
            byStatus: [{ status: 'aborted', count: 4 }],
            first: '2026-11-28T21:42:00Z',
            last: '2026-11-28T21:46:00Z',
          },
        }),
      ],
      'Europe/Berlin',
      new Date('2026-11-28T22:10:00Z'),
    );
    expect(text).toContain('Times in Europe/Berlin.');
    expect(text).toContain('missed 2026-11-28 22:47');
    expect(text).toContain('nightly: since its last success, 4 runs aborted from 22:42 to 22:46');
    expect(text).not.toContain('UTC');
    expect(displayZone([job(), job({ timezone: 'UTC' })], 'UTC')).toBe('UTC');
  });
});
