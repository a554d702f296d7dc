import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conferenceHost } from '../../../src/model/conference.js';
import { JSON_ACCEPT, XSS, type DashboardFixture, useDashboardFixture } from './dashboard-fixture.js';

interface ListedRun {
  id: string;
  conference: string | null;
  conferenceId: number | null;
}

// Each run's conference on the runs list and a run's page, and the list filtered by one:
// the fixture's run (the sandbox's conference), two runs of conference A, one of a
// conference named in HTML, and one recorded before runs named their conference.
describe('dashboard: runs by conference', () => {
  const fixture = useDashboardFixture();
  let f: DashboardFixture;
  let sandboxHost: string;
  let confA: number;
  let aRuns: string[];
  let oldRun: string;

  beforeAll(async () => {
    f = fixture();
    sandboxHost = conferenceHost(f.sandbox.url);
    const a = await f.ledger.conferenceFor('http://conf-a.example', 1);
    confA = a.id;
    const ledgerA = f.ledger.forConference(a);
    aRuns = [];
    for (const jobName of ['a-one', 'a-two']) {
      const run = await ledgerA.createRun({ jobName, mode: 'upsert' });
      await ledgerA.finishRun(run.id, 'completed', { created: 1 });
      aRuns.push(run.id);
    }
    const html = f.ledger.forConference(await f.ledger.conferenceFor(XSS, null));
    await html.finishRun((await html.createRun({ jobName: 'html', mode: 'upsert' })).id, 'completed', {});
    // The ledger as a whole names no conference: as a run from before migration 8.
    oldRun = (await f.ledger.createRun({ jobName: 'old', mode: 'upsert' })).id;
    await f.ledger.finishRun(oldRun, 'completed', {});
  });
  beforeEach(() => {
    f = fixture();
  });

  async function listed(
    search = '',
  ): Promise<{ runs: ListedRun[]; conferences: Array<{ id: number; host: string }> }> {
    const response = await f.request(`/runs${search}`, { headers: JSON_ACCEPT });
    expect(response.status, search).toBe(200);
    return (await response.json()) as { runs: ListedRun[]; conferences: Array<{ id: number; host: string }> };
  }

  it("lists each run's conference by host, and says when a run recorded none", async () => {
    const { runs, conferences } = await listed();
    const byId = new Map(runs.map((run) => [run.id, run]));
    expect(byId.get(f.runId)).toMatchObject({ conference: sandboxHost, conferenceId: expect.any(Number) });
    expect(byId.get(aRuns[0]!)).toMatchObject({ conference: 'conf-a.example', conferenceId: confA });
    expect(byId.get(oldRun)).toMatchObject({ conference: null, conferenceId: null });
    expect(conferences).toEqual(
      expect.arrayContaining([
        { id: confA, host: 'conf-a.example' },
        { id: byId.get(f.runId)!.conferenceId, host: sandboxHost },
      ]),
    );

    const html = await (await f.request('/runs')).text();
    expect(html).toContain('<th>Conference</th>');
    expect(html).toMatch(
      new RegExp(
        `<tr data-run="${aRuns[0]}">[\\s\\S]*?href="/runs\\?conference=${confA}"[^>]*>\\s*conf-a\\.example\\s*<`,
      ),
    );
    expect(html).toContain(sandboxHost);
    expect(html).toMatch(new RegExp(`<tr data-run="${oldRun}">[\\s\\S]*?not recorded[\\s\\S]*?</tr>`));
    // The select of the known conferences.
    expect(html).toMatch(new RegExp(`<option value="${confA}"\\s*>\\s*conf-a\\.example\\s*</option>`));
  });

  it('filters the list by conference, and keeps the limit in its links and form', async () => {
    const { runs } = await listed(`?conference=${confA}`);
    expect(runs.map((run) => run.id).sort()).toEqual([...aRuns].sort());
    expect(new Set(runs.map((run) => run.conference))).toEqual(new Set(['conf-a.example']));

    const limited = await listed(`?conference=${confA}&limit=1`);
    expect(limited.runs.map((run) => run.id)).toEqual([aRuns[1]]);

    const sandboxId = (await listed()).runs.find((run) => run.id === f.runId)!.conferenceId!;
    const html = await (await f.request(`/runs?conference=${sandboxId}&limit=3`)).text();
    expect(html).toContain(`Runs of ${sandboxHost}`);
    expect(html).toContain(`data-run="${f.runId}"`);
    expect(html).not.toContain(`data-run="${aRuns[0]}"`);
    expect(html).toMatch(new RegExp(`<option value="${sandboxId}" selected\\s*>`));
    expect(html).toContain('<input type="hidden" name="limit" value="3" />');

    // The empty select ("any") lists every conference's runs.
    expect((await listed('?conference=')).runs.length).toBeGreaterThanOrEqual(5);
  });

  it('answers 400 to a conference that is not an id the ledger knows, as JSON or as a page', async () => {
    for (const value of ['abc', '-1', '0', '1.5', `${confA}x`, '99999', "1' OR '1'='1", '1,2']) {
      const search = `?conference=${encodeURIComponent(value)}`;
      const response = await f.request(`/runs${search}`, { headers: JSON_ACCEPT });
      expect(response.status, value).toBe(400);
      expect(await response.json(), value).toMatchObject({
        error: { code: 'EVSYNC_CONFIG', message: expect.stringMatching(/^conference=/) },
      });
      expect((await f.request(`/runs${search}`)).status, value).toBe(400);
    }
    const unknown = await f.request('/runs?conference=99999', { headers: JSON_ACCEPT });
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toContain(
      `${confA} (conf-a.example)`,
    );
  });

  it("shows a run's conference on its page, or that it recorded none", async () => {
    const data = (await (await f.request(`/runs/${aRuns[0]}`, { headers: JSON_ACCEPT })).json()) as {
      run: ListedRun;
    };
    expect(data.run).toMatchObject({ conference: 'conf-a.example', conferenceId: confA });
    const page = await (await f.request(`/runs/${aRuns[0]}`)).text();
    expect(page).toMatch(/<dt>Conference<\/dt>\s*<dd data-conference>[\s\S]*?conf-a\.example/);
    expect(page).toContain(`href="/runs?conference=${confA}"`);
    const old = await (await f.request(`/runs/${oldRun}`)).text();
    expect(old).toMatch(/<dd data-conference>\s*<span class="note"[^>]*>not recorded</);
  });

  it('escapes a conference shown from data, and never shows a key or a base URL', async () => {
    const paths = ['/runs', `/runs?conference=${confA}`, `/runs/${f.runId}`, `/runs/${aRuns[0]}`];
    const read = (path: string, headers: Record<string, string> = {}) =>
      f.request(path, { headers }).then((response) => response.text());
    const pages = await Promise.all(paths.map((path) => read(path)));
    const answers = await Promise.all(paths.map((path) => read(path, JSON_ACCEPT)));
    expect(pages[0]).toContain('&lt;img src=x onerror=alert(1)&gt;');
    for (const [i, page] of pages.entries()) expect(page, paths[i]).not.toContain('<img');
    const everything = [...pages, ...answers].join('\n');
    expect(everything).not.toContain(f.sandbox.signingKey);
    expect(everything).not.toContain('http://conf-a.example');
    expect(everything).not.toContain(f.sandbox.url);
    expect(everything).not.toContain('keyId');
  });
});
