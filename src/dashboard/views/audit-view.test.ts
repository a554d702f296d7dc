import { describe, expect, it } from 'vitest';
import { emptyKindAudit } from '../../sync/audit/drift.js';
import type { DashboardAudit } from '../job-audits.js';
import { auditView } from './audit-view.js';

const finished = (summary: DashboardAudit['summary']): DashboardAudit => ({
  id: 'a1',
  runId: '20261128-020000-aaaa',
  jobName: 'picks',
  file: 'picks.yaml',
  status: 'finished',
  startedAt: new Date('2026-11-28T02:00:00Z'),
  finishedAt: new Date('2026-11-28T02:00:01Z'),
  summary,
  drift: [],
  driftCount: 0,
  repairable: false,
  error: null,
  repairRunId: null,
});

const verdictOf = async (audit: DashboardAudit): Promise<string | undefined> =>
  /<dd data-verdict>([^<]*)<\/dd>/.exec(String(await auditView(audit)))?.[1];

describe("an audit's page", () => {
  // The words `evsync audit` prints (auditVerdict): the page said "the platform is as the
  // source says." of a job whose rows were all RSVPs, having compared nothing.
  it('says what could not be compared, as the CLI does', async () => {
    expect(await verdictOf(finished({ rsvp: { ...emptyKindAudit(), not_auditable: 5 } }))).toBe(
      'nothing could be compared: 5 rows are of kinds the platform cannot be read back for (rsvp).',
    );
    expect(
      await verdictOf(
        finished({
          user: { ...emptyKindAudit(), in_sync: 2 },
          schedule: { ...emptyKindAudit(), not_auditable: 1 },
        }),
      ),
    ).toBe(
      'the 2 rows that could be compared are as the source says; 1 could not be (schedule: not auditable).',
    );
    expect(await verdictOf(finished({ user: { ...emptyKindAudit(), in_sync: 2 } }))).toBe(
      'the platform is as the source says.',
    );
  });
});
