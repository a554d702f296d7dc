import { Erasures } from '../../src/sync/collect/erasures.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applySeed } from '../../src/sandbox/sandbox-seed.js';
import { buildPlan } from '../../src/sync/plan/build-plan.js';
import { collectIntents } from '../../src/sync/collect/collect-intents.js';
import { loadJobFile } from '../../src/sync/job-file.js';
import type { SyncHarness } from './sync-harness.js';
import { harnessPerFile, jobYaml, people, usersCsv } from './sync-harness.js';
import { PASSWORD_USERS_MAPPING } from '../helpers/users-csv.js';
import { sentBesidesChecks } from '../helpers/sent-calls.js';

// One sandbox and one embedded ledger for the file (opening PGlite is the slow part);
// each test uses its own client_id prefix so that the ledger's history never overlaps.
describe('users sync against the sandbox', () => {
  let h: SyncHarness;
  harnessPerFile((started) => (h = started));

  const job = (name: string): string => {
    h.write({ [`${name}.yaml`]: jobYaml(name, `  - { mapping: users, source: { csv: ./${name}.csv } }\n`) });
    return `${name}.yaml`;
  };

  it('creates new users, attaches a platform-wide one (203 → PUT without password), and a rerun sends nothing', async () => {
    applySeed(h.sandbox.state, {
      users: [
        { first_name: 'Pat', last_name: 'Wide', email: 'pat@elsewhere.org', client_ids: ['other-conf-9'] },
      ],
    });
    const file = job('attach');
    const rows = [
      ...people(5, 'a'),
      { id: 'pat', email: 'pat@elsewhere.org', first: 'Patricia', last: 'Wide' },
    ];
    h.write({ 'attach.csv': usersCsv(rows) });
    const first = await h.run(file);
    expect(first.counts.user).toEqual({ created: 5, attached: 1 });
    expect(first.run.status).toBe('completed');
    const pat = h.sandbox.state.userByEmail('pat@elsewhere.org');
    expect(pat?.inConference).toBe(true);
    expect(pat?.firstName).toBe('Patricia');
    expect(h.sandbox.counters.snapshot().calls['PUT /user/member/{id}']).toBe(1);
    const attached = await h.ledger.results(first.run.id, { actions: ['attached'] });
    expect(attached[0]).toMatchObject({ key: 'pat', httpStatus: 203, platformId: pat?.id });

    const before = sentBesidesChecks(h.sandbox.counters.snapshot());
    const second = await h.run(file);
    expect(second.counts.user).toEqual({ unchanged: 6 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(before);
  });

  it('never sends a password in the PUT after a 203', async () => {
    applySeed(h.sandbox.state, {
      users: [{ first_name: 'Wo', last_name: 'Wide', email: 'wo@elsewhere.org' }],
    });
    h.write({
      'pw.yaml': jobYaml('pw', '  - { mapping: ./pw-users.yaml, source: { csv: ./pw.csv } }\n'),
      'pw-users.yaml': PASSWORD_USERS_MAPPING,
      'pw.csv': 'client_id,email,first_name,last_name,password\nwo,wo@elsewhere.org,Wo,Wide,s3cret-pass\n',
    });
    const seen: Array<{ method: string; path: string; body: Record<string, string> }> = [];
    const users = h.client.users;
    const originalUpdate = users.update.bind(users);
    users.update = async (ref, params) => {
      seen.push({
        method: 'PUT',
        path: String(typeof ref === 'number' ? ref : JSON.stringify(ref)),
        body: params,
      });
      return originalUpdate(ref, params);
    };
    try {
      const summary = await h.run('pw.yaml');
      expect(summary.counts.user).toEqual({ attached: 1 });
    } finally {
      users.update = originalUpdate;
    }
    expect(seen).toHaveLength(1);
    expect(Object.keys(seen[0]!.body).some((name) => name.includes('password'))).toBe(false);
    expect(seen[0]!.body['user[first_name]']).toBe('Wo');
    // The ledger never keeps the password either.
    const results = await h.ledger.results((await h.ledger.listRuns(1))[0]!.id);
    expect(JSON.stringify(results)).not.toContain('s3cret-pass');
  });

  it('a changed row sends exactly one update', async () => {
    const file = job('change');
    const rows = people(4, 'c');
    h.write({ 'change.csv': usersCsv(rows) });
    await h.run(file);
    rows[2] = { ...rows[2]!, last: 'Renamed' };
    h.write({ 'change.csv': usersCsv(rows) });
    const before = h.sandbox.counters.snapshot();
    const second = await h.run(file);
    const after = h.sandbox.counters.snapshot();
    expect(second.counts.user).toEqual({ unchanged: 3, updated: 1 });
    expect(after.total - before.total).toBe(1);
    expect(after.calls['PUT /user/member/{id}']).toBe(1);
    expect(h.sandbox.state.userByEmail('c3@example.org')?.lastName).toBe('Renamed');
  });

  it('a user already in this conference (422 taken) is looked up by e-mail and updated, never duplicated', async () => {
    // Made by another tool, the same people under their initial: the ledger knows nothing of
    // them. (Under a name that disagrees the account is refused: hand-made-account.test.ts.)
    for (const person of people(3, 't')) {
      await h.client.users.create({
        client_id: `elsewhere-${person.id}`,
        'user[first_name]': person.first.slice(0, 1),
        'user[last_name]': person.last,
        'user[svc_auth_attributes][email]': person.email,
      });
    }
    const file = job('taken');
    h.write({ 'taken.csv': usersCsv(people(3, 't')) });
    const summary = await h.run(file);
    expect(summary.counts.user).toEqual({ updated: 3 });
    expect(h.sandbox.counters.duplicates()).toEqual({});
    expect(h.sandbox.state.userByEmail('t1@example.org')?.firstName).toBe('First1');
    // The row's client_id is added to the user found, so links that name it find it.
    const found = h.sandbox.state.userByEmail('t1@example.org');
    expect(found?.clientIds).toEqual(['elsewhere-t1', 't1']);
    expect(h.sandbox.state.userByClientId('t1')).toBe(found);
    // 3 made beforehand, 3 refused as taken; then one lookup and one update each.
    expect(h.sandbox.counters.snapshot().calls).toEqual({
      'POST /user': 6,
      'GET /user/member/{id}': 3,
      'PUT /user/member/{id}': 3,
    });
    const again = await h.run(file);
    expect(again.counts.user).toEqual({ unchanged: 3 });
  });

  it('records invalid rows as failed with the mapping message, and sends failed rows again next run', async () => {
    const file = job('invalid');
    h.write({ 'invalid.csv': `${usersCsv(people(2, 'i')).trimEnd()}\nbad1,not-an-email,No,Mail,\n` });
    const first = await h.run(file);
    expect(first.counts.user).toMatchObject({ created: 2, failed: 1 });
    const failed = await h.ledger.results(first.run.id, { actions: ['failed'] });
    expect(failed[0]?.errorMessage).toMatch(/e-mail|email/i);
    expect(failed[0]?.origin?.row).toBe(3);

    // A platform refusal (a name over 64 characters passes no mapping rule here) fails, then succeeds once fixed.
    h.write({ 'invalid.csv': `${usersCsv(people(2, 'i')).trimEnd()}\nbad1,bad1@example.org,No,Mail,\n` });
    const second = await h.run(file);
    expect(second.counts.user).toEqual({ unchanged: 2, created: 1 });
  });

  it('resuming an older run leaves what a later run synced since: its older content is not sent', async () => {
    const file = job('older');
    h.write({
      'older.csv': usersCsv([{ id: 'old1', email: 'old1@example.org', first: 'Before', last: 'Old' }]),
    });
    // A run that planned the row and stopped before sending it (as a kill -9 leaves it).
    const loaded = loadJobFile(join(h.dir, file));
    const collected = await collectIntents(loaded, { vendor: h.client.vendor, erasures: Erasures.none() });
    const plan = await buildPlan(h.ledger, {
      jobName: loaded.name,
      ...collected,
      mode: loaded.mode,
      threshold: loaded.delete_threshold,
      force: false,
    });
    const stopped = await h.ledger.createRun({ jobName: 'older', mode: 'upsert' });
    await h.ledger.recordPlannedIntents(stopped.id, plan.work);
    h.write({
      'older.csv': usersCsv([{ id: 'old1', email: 'old1@example.org', first: 'After', last: 'Old' }]),
    });
    expect((await h.run(file)).counts.user).toEqual({ created: 1 });

    const calls = sentBesidesChecks(h.sandbox.counters.snapshot());
    const resumed = await h.resume(stopped.id);
    expect(resumed.counts.user).toEqual({ skipped: 1 });
    expect(sentBesidesChecks(h.sandbox.counters.snapshot())).toBe(calls);
    expect(h.sandbox.state.userByClientId('old1')?.firstName).toBe('After');
    const [result] = await h.ledger.results(stopped.id);
    expect(result).toMatchObject({ key: 'old1', errorCode: 'EVSYNC_SYNCED_SINCE' });
  });
});
