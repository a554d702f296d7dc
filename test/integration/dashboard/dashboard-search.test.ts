import { describe, expect, it } from 'vitest';
import { JSON_ACCEPT, useDashboardFixture } from './dashboard-fixture.js';

// `q` on a run's results searches what a person means (client_id, e-mail, name, message),
// not the stored JSON text. The other ledger is covered by the insights conformance suite.
describe('dashboard search', () => {
  const fixture = useDashboardFixture();

  async function keys(q: string): Promise<string[]> {
    const f = fixture();
    const answer = await f.request(`/runs/${f.runId}/results?q=${encodeURIComponent(q)}`, {
      headers: JSON_ACCEPT,
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { results: Array<{ key: string }> };
    return body.results.map((r) => r.key).sort();
  }

  it('matches no row on the JSON text around the values: quotes, brackets, _, param names', async () => {
    for (const q of ['"', '[', ']', '_', '%', ':', 'user[', 'first_name', 'svc_auth'])
      expect(await keys(q), q).toEqual([]);
  });

  it('finds a row by client_id, e-mail address, name, whole name, event name and message', async () => {
    expect(await keys('DU2')).toEqual(['du2']);
    expect(await keys('du1@example')).toEqual(['du1']);
    expect(await keys('ann one')).toEqual(['du1']);
    expect(await keys('Sponsored 2')).toEqual(['de2']);
    expect(await keys('=1+')).toEqual(['=1+2']);
    const f = fixture();
    const failed = (await (
      await f.request(`/runs/${f.runId}/results?status=failed&kind=event`, { headers: JSON_ACCEPT })
    ).json()) as { results: Array<{ key: string; errorMessage: string | null }> };
    const message = failed.results[0]!.errorMessage!;
    expect(await keys(message.slice(0, 20))).toEqual(expect.arrayContaining(['de1', 'de2']));
  });
});
