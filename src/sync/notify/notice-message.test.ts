import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../model/run-record.js';
import { describeMissed } from './missed-runs.js';
import { causeOf, errorsWorthTelling } from './notice-cause.js';
import { noticeHtml } from './notice-html.js';
import { noticeSubject, noticeText, type Notice } from './notice-message.js';

const run: RunRecord = {
  id: '20261128-224301-3390',
  seq: 4,
  jobName: 'nightly',
  mode: 'upsert',
  status: 'aborted',
  startedAt: new Date('2026-11-28T21:43:01Z'),
  finishedAt: new Date('2026-11-28T21:43:09Z'),
  counts: { failed: 0, unchanged: 74 },
  options: {
    aborted: 'the platform could not be reached for its check (ECONNREFUSED)',
    abortCode: 'EVSYNC_PLATFORM_UNREACHABLE',
  },
  conference: { id: 1, baseUrl: 'https://myconf.example.com' },
};
const groups = [
  { action: 'skipped', code: 'EVSYNC_DUPLICATE_ROW', example: 'row 4 repeats row 2', count: 1 },
  { action: 'skipped', code: 'EVSYNC_ROW_SKIPPED', example: 'refunded ticket', count: 1 },
  { action: 'failed', code: 'EVSYNC_PLATFORM_UNREACHABLE', example: 'could not reach', count: 3 },
];
const problems = [
  { rule: 'run_failed', text: `run ${run.id} ended aborted: ${String(run.options.aborted)}` },
];

function notice(overrides: Partial<Notice> = {}): Notice {
  return {
    event: 'problem',
    job: 'nightly',
    conference: 'myconf.example.com',
    cause: causeOf(problems, run, groups),
    timezone: 'Europe/Berlin',
    run: {
      id: run.id,
      trigger: 'schedule',
      status: 'aborted',
      started_at: run.startedAt.toISOString(),
      finished_at: run.finishedAt!.toISOString(),
    },
    problems,
    missed: null,
    left: null,
    counts: { user: { unchanged: 74 } },
    errors: errorsWorthTelling(groups).map((g) => ({
      code: g.code,
      meaning: '…',
      message: g.example,
      count: g.count,
    })),
    link: null,
    ...overrides,
  };
}

describe('a notice', () => {
  it('names the conference and the cause in its subject, and leads with what to do', () => {
    expect(noticeSubject(notice())).toBe('[evsync] nightly on myconf.example.com: platform unreachable');
    const text = noticeText(notice());
    const lines = text.split('\n');
    expect(lines[2]).toMatch(
      /^What happened: run 20261128-224301-3390 ended aborted: the platform could not be reached/,
    );
    expect(lines[3]).toMatch(
      /^What to do: Check EVSYNC_BASE_URL and the network; `evsync resume 20261128-224301-3390`/,
    );
    expect(text).toContain('started 2026-11-28 22:43 Europe/Berlin (21:43 UTC)');
  });

  it('never lists a skip on purpose as an error; the platform-wide cause comes first', () => {
    expect(errorsWorthTelling(groups).map((g) => g.code)).toEqual([
      'EVSYNC_PLATFORM_UNREACHABLE',
      'EVSYNC_DUPLICATE_ROW',
    ]);
  });

  it('says a refused signature, and rows that failed, in words', () => {
    const refused = causeOf(problems, { ...run, options: { abortCode: 'EVSYNC_PLATFORM_UNAUTHORIZED' } }, []);
    expect(refused.title).toBe('signature refused');
    const rows = causeOf(
      [{ rule: 'failed_rows', text: 'run x: 42 of 100 rows failed' }],
      { ...run, status: 'completed', counts: { failed: 42 } },
      [],
    );
    expect(rows.title).toBe('42 rows failed');
    expect(rows.action).toContain(`evsync retry ${run.id}`);
  });

  it('back to normal says what was missed and what is left', () => {
    const missed = describeMissed(
      {
        byStatus: [{ status: 'aborted', count: 4 }],
        count: 4,
        first: new Date('2026-11-28T21:42:00Z'),
        last: new Date('2026-11-28T21:46:00Z'),
      },
      'Europe/Berlin',
    );
    expect(missed).toBe('4 runs aborted from 22:42 to 22:46');
    const back = notice({ event: 'recovered', missed, left: 'Nothing is left to resume or retry.' });
    expect(noticeSubject(back)).toBe(
      '[evsync] nightly on myconf.example.com: back to normal after platform unreachable',
    );
    expect(noticeText(back)).toContain('Missed meanwhile: 4 runs aborted from 22:42 to 22:46.');
  });

  it('is styled HTML with no literal backticks', () => {
    const html = noticeHtml(notice());
    expect(html).toContain('font-family:-apple-system');
    expect(html).not.toContain('`');
    expect(html).toContain('<code');
    expect(html.indexOf('What happened')).toBeLessThan(html.indexOf('Errors:'));
  });
});
