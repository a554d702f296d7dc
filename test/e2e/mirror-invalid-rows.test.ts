import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SyncHarness } from './sync-harness.js';
import { jobYaml, people, startHarness, usersCsv } from './sync-harness.js';

// KNOWN BUG (reported; the fix belongs in the plan, src/sync/plan/): in mirror mode a row
// that is still in the source but fails the mapping (here a mistyped e-mail) counts as
// "gone", so its already-synced user is deleted from the conference. The failed row's
// result is keyed `@file:row`, not by its client_id, and `planMirrorDeletes` only keeps the
// keys of valid intents. Drop `.fails` once invalid rows protect their key from deletion.
describe('mirror mode and rows that fail the mapping', () => {
  let h: SyncHarness;
  beforeAll(async () => {
    h = await startHarness();
  }, 180_000);
  afterAll(async () => h.close(), 60_000);

  it.fails('keeps a synced user whose row now has a mistyped e-mail', async () => {
    h.write({
      'm.yaml': jobYaml(
        'm',
        '  - { mapping: users, source: { csv: ./u.csv } }\n',
        'mode: mirror\ndelete_threshold: 50%\n',
      ),
    });
    const rows = people(4, 'mi');
    h.write({ 'u.csv': usersCsv(rows) });
    expect((await h.run('m.yaml')).counts.user).toEqual({ created: 4 });

    rows[2] = { ...rows[2]!, email: 'mi3-at-example.org' };
    h.write({ 'u.csv': usersCsv(rows) });
    const second = await h.run('m.yaml');
    expect(h.sandbox.counters.snapshot().calls['DELETE /user/member/{id}'] ?? 0).toBe(0);
    expect(h.sandbox.state.userByClientId('mi3')?.inConference).toBe(true);
    expect(second.counts.user).toEqual({ unchanged: 3, failed: 1 });
  });
});
