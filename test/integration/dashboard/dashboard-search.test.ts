import { describe, expect, it } from 'vitest';
import { JSON_ACCEPT, useDashboardFixture } from './dashboard-fixture.js';

// `q` on a run's results searches what a person means (client_id, e-mail, name, message),
// not the stored JSON text. The insights conformance suite runs the same on both ledgers.
describe('dashboard search', () => {
  const fixture = useDashboardFixture();

  async function keys(q: string, filter = ''): Promise<string[]> {
    const f = fixture();
    const answer = await f.request(`/runs/${f.runId}/results?q=${encodeURIComponent(q)}${filter}`, {
      headers: JSON_ACCEPT,
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { results: Array<{ key: string }> };
    return body.results.map((r) => r.key).sort();
  }

  it('matches no row on the JSON text around its values: quotes, brackets, _, param names', async () => {
    // The created rows carry no message (the failed ones' messages quote values and params).
    expect(await keys('', '&status=created')).toEqual(['=1+2', 'du1', 'du2']);
    for (const q of ['"', '[', ']', '_', '%', ':', '{', 'user[', 'first_name', 'svc_auth', 'client_id'])
      expect(await keys(q, '&status=created'), q).toEqual([]);
  });

  it('finds a row by client_id, e-mail address, name, whole name, event name and message', async () => {
    expect(await keys('DU2')).toEqual(['du2']);
    expect(await keys('du1@example')).toEqual(['du1']);
    expect(await keys('ann one')).toEqual(['du1']);
    expect(await keys('Sponsored 2')).toEqual(['de2']);
    expect(await keys('=1+')).toEqual(['=1+2']);
    expect(await keys('names no exhibitor')).toEqual(['de1', 'de2', 'de3']);
    expect(await keys('is not an e-mail')).toEqual(['dubad']);
    // The password is stored redacted, and never searched.
    expect(await keys('redacted')).toEqual([]);
  });
});
