import { describe, expect, it } from 'vitest';
import { auditVerdict } from './audit-verdict.js';
import { emptyKindAudit, type KindAudit } from './drift.js';

const kind = (counts: Partial<KindAudit>): KindAudit => ({ ...emptyKindAudit(), ...counts });

describe('an audit verdict', () => {
  it('says nothing could be compared when every row is of a kind the platform cannot be read back for', () => {
    // The build before: "the platform is as the source says.", having compared nothing.
    expect(auditVerdict({ rsvp: kind({ not_auditable: 5 }) })).toBe(
      'nothing could be compared: 5 rows are of kinds the platform cannot be read back for (rsvp).',
    );
    expect(auditVerdict({ rsvp: kind({ not_auditable: 1 }), contact: kind({ not_auditable: 2 }) })).toBe(
      'nothing could be compared: 3 rows are of kinds the platform cannot be read back for (rsvp, contact).',
    );
    expect(auditVerdict({})).toBe('nothing to compare: the sources gave no row.');
  });

  it('says which part was compared and which could not be', () => {
    const users = kind({ in_sync: 6, not_synced: 1 });
    expect(auditVerdict({ user: users, schedule: kind({ not_auditable: 2 }) })).toBe(
      'the 7 rows that could be compared are as the source says; 2 could not be (schedule: not auditable).',
    );
    expect(auditVerdict({ user: { ...users, extra: 3 }, rsvp: kind({ not_auditable: 1 }) })).toBe(
      'the 7 rows that could be compared are in sync (3 extra on the platform, reported, never deleted); 1 could not be (rsvp: not auditable).',
    );
    expect(auditVerdict({ user: kind({ in_sync: 1 }), rsvp: kind({ not_auditable: 1 }) })).toBe(
      'the 1 row that could be compared is as the source says; 1 could not be (rsvp: not auditable).',
    );
    expect(auditVerdict({ user: kind({ changed: 1 }), rsvp: kind({ not_auditable: 4 }) })).toBe(
      'the platform differs from the source; 4 rows could not be compared (rsvp: not auditable).',
    );
  });

  it('is as before when every row could be compared', () => {
    expect(auditVerdict({ user: kind({ in_sync: 3 }) })).toBe('the platform is as the source says.');
    expect(auditVerdict({ user: kind({ in_sync: 3, extra: 2 }) })).toBe(
      'in sync (2 extra on the platform, reported, never deleted).',
    );
    expect(auditVerdict({ user: kind({ in_sync: 2, missing: 1 }) })).toBe(
      'the platform differs from the source.',
    );
    expect(auditVerdict({ user: kind({ another_person: 1 }) })).toBe('the platform differs from the source.');
  });
});
