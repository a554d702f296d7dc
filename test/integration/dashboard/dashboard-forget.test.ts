import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type DashboardFixture, JSON_ACCEPT, useDashboardFixture } from './dashboard-fixture.js';

// "Forget this person…" (docs/privacy.md, "From the dashboard") through the app's fetch:
// what it refuses before asking the platform, and that it forgets exactly the row's person in
// the conference the row's run wrote to. The tests run in order on one ledger.
describe('dashboard forget', () => {
  const fixture = useDashboardFixture();
  let f: DashboardFixture;
  beforeEach(() => {
    f = fixture();
  });
  const form = (fields: Record<string, string>): RequestInit => ({
    method: 'POST',
    headers: { ...JSON_ACCEPT, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const inConference = (email: string): boolean => f.sandbox.state.userByEmail(email)?.inConference === true;

  it('offers the action on user rows with a client_id only', async () => {
    const user = await (await f.request(`/runs/${f.runId}/results/user/du1`)).text();
    expect(user).toContain(`href="/runs/${f.runId}/forget?client_id=du1"`);
    const event = await (await f.request(`/runs/${f.runId}/results/event/de1`)).text();
    expect(event).not.toContain('Forget this person');
  });

  it('refuses what is not a user row of the run, before any call', async () => {
    const calls = f.sandbox.counters.snapshot().total;
    for (const clientId of ['de1', 'nobody', 'erased:0123456789abcdef', '']) {
      const answer = await f.request(`/runs/${f.runId}/forget?client_id=${encodeURIComponent(clientId)}`, {
        headers: JSON_ACCEPT,
      });
      expect(answer.status, clientId).toBe(400);
      expect(await answer.json()).toMatchObject({ error: { code: 'EVSYNC_USAGE' } });
    }
    const long = await f.request(
      `/runs/${f.runId}/forget`,
      form({ client_id: 'du1', reason: 'x'.repeat(501) }),
    );
    expect(long.status).toBe(400);
    expect(f.sandbox.counters.snapshot().total).toBe(calls);
    expect(inConference('du1@example.org')).toBe(true);
  });

  it('refuses a platform other than the conference the run wrote to, and removes nothing', async () => {
    vi.stubEnv('EVSYNC_BASE_URL', 'http://127.0.0.1:9/other-conference');
    try {
      const answer = await f.request(`/runs/${f.runId}/forget`, form({ client_id: 'du1' }));
      expect(answer.status).toBe(409);
      expect(await answer.json()).toMatchObject({ error: { code: 'EVSYNC_CONFERENCE_MISMATCH' } });
    } finally {
      vi.stubEnv('EVSYNC_BASE_URL', f.sandbox.url);
    }
    expect(inConference('du1@example.org')).toBe(true);
    expect((await f.ledger.erasure().list()).length).toBe(0);
  });

  it('previews, then forgets the row’s person only, and lists the tombstone', async () => {
    const preview = await f.request(`/runs/${f.runId}/forget?client_id=du1`, { headers: JSON_ACCEPT });
    expect(await preview.json()).toMatchObject({ dryRun: true, tombstone: null, found: { clientIds: 1 } });
    expect(inConference('du1@example.org')).toBe(true);

    const done = await f.request(
      `/runs/${f.runId}/forget`,
      form({ client_id: 'du1', reason: ' request 7 ' }),
    );
    expect(done.status).toBe(200);
    const outcome = (await done.json()) as { tombstone: number; marker: string; platformRemoved: number[] };
    expect(outcome.platformRemoved).toHaveLength(1);
    expect(outcome.marker).toMatch(/^erased:[0-9a-f]{16}$/);
    expect(inConference('du1@example.org')).toBe(false);
    // The other person of the run is untouched.
    expect(inConference('du2@example.org')).toBe(true);
    expect(await (await f.request(`/runs/${f.runId}/results/user/du2`)).text()).toContain('du2@example.org');

    const gone = await f.request(`/runs/${f.runId}/results/user/du1`);
    expect(gone.status).toBe(404);
    const page = await gone.text();
    expect(page).toContain('its person was forgotten');
    expect(page).not.toContain('du1');
    const row = await (await f.request(`/runs/${f.runId}/results/user/${outcome.marker}`)).text();
    expect(row).toContain('This row names a person who was forgotten');
    expect(row).not.toContain('du1@example.org');

    const list = (await (await f.request('/erasures', { headers: JSON_ACCEPT })).json()) as {
      tombstones: Array<{ id: number; reason: string; erasedBy: string }>;
    };
    expect(list.tombstones).toEqual([
      expect.objectContaining({
        id: outcome.tombstone,
        reason: 'request 7',
        erasedBy: expect.stringMatching(/\(dashboard\)$/),
      }),
    ]);
    const html = await (await f.request('/erasures')).text();
    expect(html).toContain('request 7');
    expect(html).not.toMatch(/du1|example\.org|Ann/);
    const one = await (
      await f.request(`/erasures/${outcome.tombstone}?run=${f.runId}&row=${outcome.marker}`)
    ).text();
    expect(one).toContain('1 platform user(s) removed from the conference');
    expect(one).toContain(`/runs/${f.runId}/results/user/${encodeURIComponent(outcome.marker)}`);
    expect((await f.request('/erasures/999')).status).toBe(404);
  });
});
