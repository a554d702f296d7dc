import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteThresholdError } from '../../src/sync/plan/delete-threshold-error.js';
import { SERVICES, serviceAvailable } from '../helpers/services.js';
import type { SyncHarness } from './sync-harness.js';
import { jobYaml, people, startHarness, usersCsv } from './sync-harness.js';

const MIRROR_JOB = jobYaml(
  'mirror',
  '  - { mapping: users, source: { csv: ./users.csv } }\n',
  'mode: mirror\ndelete_threshold: 10%\n',
);

const ledgers = [
  { name: 'embedded', databaseUrl: undefined },
  { name: 'PostgreSQL', databaseUrl: SERVICES.postgres.url },
] as const;

// Mirror mode and the ledger adapters: the same behaviour on the embedded and the PostgreSQL ledger.
describe.each(ledgers)('mirror mode on the $name ledger', ({ databaseUrl }) => {
  let h: SyncHarness | undefined;
  let skip = false;
  beforeAll(async () => {
    if (databaseUrl && !(await serviceAvailable('postgres'))) {
      skip = true;
      return;
    }
    h = await startHarness({
      ...(databaseUrl ? { databaseUrl, schema: `evsync_mirror_${randomBytes(4).toString('hex')}` } : {}),
    });
    h.write({ 'mirror.yaml': MIRROR_JOB });
  }, 180_000);
  afterAll(async () => h?.close(), 60_000);

  it('deletes what left the source, refuses above the threshold, and goes ahead with --force', async (context) => {
    if (skip || !h) return context.skip();
    const everyone = people(20, 'm');
    h.write({ 'users.csv': usersCsv(everyone) });
    expect((await h.run('mirror.yaml')).counts.user).toEqual({ created: 20 });

    // One of 20 gone (5 %): deleted from this conference only.
    h.write({ 'users.csv': usersCsv(everyone.slice(1)) });
    const second = await h.run('mirror.yaml');
    expect(second.counts.user).toEqual({ unchanged: 19, deleted: 1 });
    expect(h.sandbox.state.userByEmail('m1@example.org')?.inConference).toBe(false);
    expect(h.sandbox.counters.snapshot().calls['DELETE /user/member/{id}']).toBe(1);

    // Five of the 19 left (26 %): aborted before a single call, with the numbers.
    h.write({ 'users.csv': usersCsv(everyone.slice(6)) });
    const callsBefore = h.sandbox.counters.snapshot().total;
    const refused = await h.run('mirror.yaml').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DeleteThresholdError);
    expect((refused as Error).message).toMatch(/delete 5 of 19 known users .*threshold allows 1.*--force/);
    expect(h.sandbox.counters.snapshot().total).toBe(callsBefore);
    const [aborted] = await h.ledger.listRuns(1);
    expect(aborted?.status).toBe('aborted');

    const forced = await h.run('mirror.yaml', { force: true });
    expect(forced.counts.user).toEqual({ unchanged: 14, deleted: 5 });
    expect(h.sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('m'))).toHaveLength(14);

    // Deleted users are forgotten: adding one back creates it again (the platform attaches it, 203).
    h.write({ 'users.csv': usersCsv(everyone.slice(5)) });
    const back = await h.run('mirror.yaml');
    expect(back.counts.user).toEqual({ unchanged: 14, attached: 1 });
  });

  it("deletes only what its own job synced: another job's users are not its to delete", async (context) => {
    if (skip || !h) return context.skip();
    h.write({
      'speakers-users.csv': usersCsv(people(5, 'sj')),
      'speakers.yaml': jobYaml(
        'sessionize-speakers',
        '  - { mapping: users, source: { csv: ./speakers-users.csv } }\n',
      ),
      'attendees.csv': usersCsv(people(3, 'aj')),
      'attendees.yaml': jobYaml(
        'attendees',
        '  - { mapping: users, source: { csv: ./attendees.csv } }\n',
        'mode: mirror\ndelete_threshold: 50%\n',
      ),
    });
    expect((await h.run('speakers.yaml')).counts.user).toEqual({ created: 5 });
    expect((await h.run('attendees.yaml')).counts.user).toEqual({ created: 3 });
    const deletesBefore = h.sandbox.counters.snapshot().calls['DELETE /user/member/{id}'] ?? 0;

    h.write({ 'attendees.csv': usersCsv(people(2, 'aj')) });
    const mirrored = await h.run('attendees.yaml');
    expect(mirrored.counts.user).toEqual({ unchanged: 2, deleted: 1 });
    expect(h.sandbox.counters.snapshot().calls['DELETE /user/member/{id}']).toBe(deletesBefore + 1);
    expect(h.sandbox.state.userByEmail('aj3@example.org')?.inConference).toBe(false);
    expect(h.sandbox.state.conferenceUsers().filter((u) => u.email.startsWith('sj'))).toHaveLength(5);
  });
});
