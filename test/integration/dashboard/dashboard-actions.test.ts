import { beforeEach, describe, expect, it } from 'vitest';
import {
  untilFinished,
  type DashboardFixture,
  JSON_ACCEPT,
  useDashboardFixture,
} from './dashboard-fixture.js';

// Retry, resume and run again from the dashboard: the CLI's engine functions, in the
// background, each landing as a run the answer points to. The tests run in order on one ledger.
describe('dashboard actions', () => {
  const fixture = useDashboardFixture();
  let f: DashboardFixture;
  beforeEach(() => {
    f = fixture();
  });

  it('asks first: the confirmation page says what a retry will do and carries the filter', async () => {
    const page = await (await f.request(`/runs/${f.runId}/retry?kind=event`)).text();
    expect(page).toContain('the 3 failed intent(s) of kind event');
    const all = await (await f.request(`/runs/${f.runId}/retry`)).text();
    expect(all).toContain('the 3 failed intent(s) of run');
    // dubad failed the mapping: read again by its client_id, as `evsync retry` does.
    expect(all).toContain(
      'Reads again from the job&#39;s source the 1 row(s) that failed there or in the mapping',
    );
    const users = await (await f.request(`/runs/${f.runId}/retry?kind=user`)).text();
    expect(users).toContain(`A new run linked to run ${f.runId} of kind user.`);
    expect(users).toContain('<button>Retry failed rows</button>');
    expect(await (await f.request(`/runs/${f.runId}/retry?kind=contact`)).text()).toContain(
      'has no failed rows of kind contact that a retry can send',
    );
    expect(page).toMatch(/<form method="post" action="\/runs\/[^"]+\/retry"/);
    expect(page).toMatch(/name="kind" value="event"/);
    const resume = await (await f.request(`/runs/${f.runId}/resume`)).text();
    expect(resume).toContain('nothing to resume');
    const rerun = await (await f.request(`/runs/${f.runId}/rerun`)).text();
    expect(rerun).toContain('job.yaml');
  });

  it('answers 409 with the holder when the job is busy, and sends nothing', async () => {
    // Job locks belong to a conference (migration 8): the run's, which its retry and rerun take.
    const conference = (await f.ledger.getRun(f.runId))?.conference;
    if (!conference) throw new Error(`run ${f.runId} names no conference`);
    const ofConference = await f.ledger.findConference(conference.baseUrl);
    const lock = await f.ledger.forConference(ofConference!).lockJob('dash');
    try {
      const calls = f.sandbox.counters.snapshot().total;
      const busy = await f.request(`/runs/${f.runId}/retry`, { method: 'POST', headers: JSON_ACCEPT });
      expect(busy.status).toBe(409);
      expect(await busy.json()).toMatchObject({ error: { code: 'EVSYNC_JOB_BUSY' } });
      const page = await f.request(`/runs/${f.runId}/rerun`, {
        method: 'POST',
        headers: { accept: 'text/html' },
      });
      expect(page.status).toBe(409);
      expect(await page.text()).toContain('is already being run by');
      expect(f.sandbox.counters.snapshot().total).toBe(calls);
    } finally {
      await lock.release();
    }
  });

  it('retries one row as a new run linked to its parent (JSON answer)', async () => {
    f.acceptFailed();
    // A slow platform: the answer comes as soon as the run exists, while it still runs.
    f.sandbox.faults.set({ latency: { minMs: 400, maxMs: 400 } });
    const response = await f.request(`/runs/${f.runId}/retry`, {
      method: 'POST',
      headers: { ...JSON_ACCEPT, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'event', client_id: 'de1' }),
    });
    expect(response.status).toBe(200);
    const { runId } = (await response.json()) as { runId: string };
    expect(runId).not.toBe(f.runId);
    expect((await f.ledger.getRun(runId))?.status).toBe('running');
    await untilFinished(f.ledger, runId);
    f.sandbox.faults.set({});
    const retry = await f.ledger.getRun(runId);
    expect(retry).toMatchObject({ status: 'completed', options: { retryOf: f.runId, trigger: 'retry' } });
    expect(await f.ledger.resultCounts(runId)).toEqual({ event: { created: 1 } });
    const parent = (await (await f.request(`/runs/${f.runId}`, { headers: JSON_ACCEPT })).json()) as {
      retries: string[];
    };
    expect(parent.retries).toEqual([runId]);
  });

  it('retries the failed rows of a filter from a form: 303 to the new run, whose page follows it', async () => {
    const response = await f.request(`/runs/${f.runId}/retry`, {
      method: 'POST',
      body: new URLSearchParams({ status: 'failed', kind: 'event' }),
    });
    expect(response.status).toBe(303);
    const location = response.headers.get('location')!;
    expect(location).toMatch(/^\/runs\/[\w-]+$/);
    const runId = decodeURIComponent(location.slice('/runs/'.length));
    // Its event stream ends once the run does, with the new run's counts.
    const events = await (await f.request(`/runs/${runId}/events`)).text();
    expect(events).toMatch(/^event: end$/m);
    await untilFinished(f.ledger, runId);
    // de2 and de3 are created now; de1, failed in that run too, was synced as planned by the
    // retry before: recorded unchanged, not sent again (docs/sync-engine.md, "Retry").
    expect(await f.ledger.resultCounts(runId)).toEqual({ event: { created: 2, unchanged: 1 } });
    expect(f.sandbox.state.eventByClientId('de3')).toBeDefined();
    const page = await (await f.request(location)).text();
    expect(page).toMatch(new RegExp(`retry\\s+of\\s+<a href="/runs/${f.runId}">`));
  });

  it('says when there is nothing to retry, or a status a retry cannot take', async () => {
    const none = await f.request(`/runs/${f.runId}/retry`, {
      method: 'POST',
      headers: JSON_ACCEPT,
      body: new URLSearchParams({ kind: 'user' }),
    });
    expect(none.status).toBe(409);
    const wrong = await f.request(`/runs/${f.runId}/retry`, {
      method: 'POST',
      headers: JSON_ACCEPT,
      body: new URLSearchParams({ status: 'created' }),
    });
    expect(wrong.status).toBe(400);
  });

  it('resumes a run in place, and runs the job again from its file as a new run', async () => {
    const resumed = await f.request(`/runs/${f.runId}/resume`, { method: 'POST', headers: JSON_ACCEPT });
    expect(await resumed.json()).toEqual({ runId: f.runId });
    const rerun = await f.request(`/runs/${f.runId}/rerun`, { method: 'POST', headers: JSON_ACCEPT });
    expect(rerun.status).toBe(200);
    const { runId } = (await rerun.json()) as { runId: string };
    await untilFinished(f.ledger, runId);
    const run = await f.ledger.getRun(runId);
    expect(run).toMatchObject({ jobName: 'dash', options: { trigger: 'manual', rerunOf: f.runId } });
    const page = await (await f.request(`/runs/${runId}`)).text();
    expect(page).toContain(`running again the job of <a href="/runs/${f.runId}">`);
    // Everything synced by now: the new run sends nothing new for the events.
    expect((await f.ledger.resultCounts(runId)).event?.failed ?? 0).toBe(0);
  });
});
