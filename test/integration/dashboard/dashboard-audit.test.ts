import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DashboardAudit } from '../../../src/dashboard/job-audits.js';
import { PlatformClient } from '../../../src/platform/platform-client.js';
import {
  untilFinished,
  type DashboardFixture,
  JSON_ACCEPT,
  useDashboardFixture,
} from './dashboard-fixture.js';

/** Calls other than GET that reached the sandbox since its counters were zeroed. */
function writes(f: DashboardFixture): string[] {
  return Object.keys(f.sandbox.counters.snapshot().calls).filter((call) => !call.startsWith('GET '));
}

// The audit of a run's job from the dashboard (docs/dashboard.md, "Audit"): asked first,
// read in the background, shown with its drift, and repaired as a run. In order, one ledger.
describe('dashboard audit', () => {
  const fixture = useDashboardFixture();
  let f: DashboardFixture;
  let admin: PlatformClient;
  beforeEach(() => {
    f = fixture();
  });
  beforeAll(() => {
    admin = new PlatformClient({
      baseUrl: fixture().sandbox.url,
      keyId: fixture().sandbox.keyId,
      signingKey: fixture().sandbox.signingKey,
    });
  });
  afterAll(async () => {
    await admin?.close();
  });

  async function audit(): Promise<DashboardAudit> {
    const started = await f.request(`/runs/${f.runId}/audit`, { method: 'POST', headers: JSON_ACCEPT });
    expect(started.status).toBe(200);
    const { auditId } = (await started.json()) as { auditId: string };
    for (let tries = 0; tries < 300; tries += 1) {
      const answer = (await (await f.request(`/audits/${auditId}`, { headers: JSON_ACCEPT })).json()) as {
        audit: DashboardAudit;
      };
      if (answer.audit.status !== 'running') return answer.audit;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`audit ${auditId} still running`);
  }

  it('asks first, with a CSRF form, and says that it only reads', async () => {
    const page = await (await f.request(`/runs/${f.runId}/audit`)).text();
    expect(page).toContain('It only reads');
    expect(page).toContain('job.yaml');
    expect(page).toMatch(/<form method="post" action="\/runs\/[^"]+\/audit"/);
    expect(await (await f.request(`/runs/${f.runId}`)).text()).toContain(`/runs/${f.runId}/audit`);
  });

  it('refuses a POST through a session without its CSRF token', async () => {
    const login = await f.request('/login?token=dashboard-test-token', { bearer: false });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const refused = await f.request(`/runs/${f.runId}/audit`, {
      method: 'POST',
      bearer: false,
      headers: { cookie },
    });
    expect(refused.status).toBe(403);
  });

  it('finds nothing after the sync, reading only, and offers no repair', async () => {
    f.sandbox.counters.reset();
    const found = await audit();
    expect(found).toMatchObject({ status: 'finished', repairable: false, driftCount: 0, error: null });
    expect(found.summary?.user).toMatchObject({ in_sync: 2, missing: 0, changed: 0 });
    // The events the platform refused were never synced: a run would create them; no drift.
    expect(found.summary?.event).toMatchObject({ in_sync: 1, not_synced: 3 });
    expect(writes(f)).toEqual([]);
    const page = await (await f.request(`/audits/${found.id}`)).text();
    expect(page).toContain('the platform is as the source says');
    expect(page).not.toContain('/repair"');
    const refused = await f.request(`/audits/${found.id}/repair`, { method: 'POST', headers: JSON_ACCEPT });
    expect(refused.status).toBe(400);
  });

  it('shows what was changed by hand, escaped, and repairs it as a run', async () => {
    const xss = '<img src=x onerror=alert(2)>';
    await admin.events.update({ clientId: '=1+2' }, { 'event[item_attributes][display_value]': xss });
    const du1 = f.sandbox.state.userByClientId('du1')!;
    await admin.users.delete(du1.id);
    const found = await audit();
    expect(found).toMatchObject({ status: 'finished', repairable: true, driftCount: 2 });
    expect(found.drift.map(({ kind, key, type, fields }) => ({ kind, key, type, fields }))).toEqual([
      { kind: 'user', key: 'du1', type: 'missing', fields: [] },
      { kind: 'event', key: '=1+2', type: 'changed', fields: ['event[item_attributes][display_value]'] },
    ]);
    const page = await (await f.request(`/audits/${found.id}`)).text();
    expect(page).toContain('the platform differs from the source');
    expect(page).not.toContain(xss);
    expect(page).toContain('&lt;img src=x onerror=alert(2)&gt;');
    expect(page).toContain(`href="/audits/${found.id}/repair"`);
    const confirm = await (await f.request(`/audits/${found.id}/repair`)).text();
    expect(confirm).toMatch(new RegExp(`<form method="post" action="/audits/${found.id}/repair"`));

    const repaired = await f.request(`/audits/${found.id}/repair`, { method: 'POST' });
    expect(repaired.status).toBe(303);
    const runId = decodeURIComponent(repaired.headers.get('location')!.split('/')[2]!);
    await untilFinished(f.ledger, runId);
    expect(await f.ledger.getRun(runId)).toMatchObject({
      status: 'completed',
      options: { trigger: 'audit' },
    });
    expect(f.sandbox.state.eventByClientId('=1+2')?.name).toBe('Formula');
    expect(f.sandbox.state.userByClientId('du1')?.inConference).toBe(true);
    expect(f.sandbox.counters.duplicates()).toEqual({});
    // Asked again, the same run: an audit is repaired once.
    const again = await f.request(`/audits/${found.id}/repair`, { method: 'POST', headers: JSON_ACCEPT });
    expect(await again.json()).toEqual({ runId });
    expect(await (await f.request(`/audits/${found.id}`)).text()).toContain(`data-repair-run>${runId}`);

    expect(await audit()).toMatchObject({ status: 'finished', repairable: false });
  }, 60_000);

  it('answers 404 for an audit it does not keep', async () => {
    expect((await f.request('/audits/nope', { headers: JSON_ACCEPT })).status).toBe(404);
    expect((await f.request('/audits/nope')).status).toBe(404);
  });
});
