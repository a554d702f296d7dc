import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { postgresSchema, serviceAvailable, SERVICES } from '../helpers/services.js';

/**
 * Issue #42 through the built CLI: `evsync forget` removes a person from the conference and
 * from every stored row, and the runs after it never bring them back, on both ledgers.
 * The demo's job, plus a fifth step that gives speaker att-0008 a profile of their own
 * (another client_id, a bio): one person merged across two steps, forgotten by the second
 * client_id alone.
 */
const JOBS = resolve(import.meta.dirname, '../../jobs');
const PERSON = {
  email: 'edsger.shaw8@example.org',
  clientIds: ['att-0008', 'cfp-0008'],
  name: 'Edsger Shaw',
  bio: 'Erased-bio-marker writes compilers',
};

const postgresReady = await serviceAvailable('postgres');

function setUpJob(dir: string): void {
  cpSync(JOBS, dir, { recursive: true });
  writeFileSync(
    join(dir, 'demo-data', 'profiles.csv'),
    `client_id,email,first_name,last_name,bio\ncfp-0008,${PERSON.email},Edsger,Shaw,${PERSON.bio}\n`,
  );
  const job = readFileSync(join(dir, 'demo.yaml'), 'utf8');
  writeFileSync(
    join(dir, 'demo.yaml'),
    `${job.trimEnd()}\n  - { mapping: users, source: { csv: ./demo-data/profiles.csv } }\n`,
  );
}

/** Every file under `dir` that holds any of `needles` (a plain byte search, as `grep -r`). */
function filesHolding(dir: string, needles: readonly string[]): string[] {
  const found: string[] = [];
  const walk = (path: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const stat = statSync(full, { throwIfNoEntry: false });
      if (stat === undefined) continue;
      if (stat.isDirectory()) walk(full);
      else if (stat.isFile()) {
        const bytes = readFileSync(full);
        if (needles.some((needle) => bytes.includes(needle))) found.push(full);
      }
    }
  };
  walk(dir);
  return found;
}

/** The whole PostgreSQL ledger as text, table by table (what `pg_dump --data-only` holds). */
async function dumpSchema(schema: string): Promise<string> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: SERVICES.postgres.url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string }>(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1',
      [schema],
    );
    let text = '';
    for (const { name } of tables.rows) {
      const rows = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${schema}.${name} t`);
      text += rows.rows.map((r) => r.row).join('\n');
    }
    return text;
  } finally {
    await client.end();
  }
}

function inConference(sandbox: RunningSandbox): boolean {
  const user = sandbox.state.userByEmail(PERSON.email);
  return user?.inConference === true;
}

function speakerLinks(sandbox: RunningSandbox, userId: number): number {
  return [...sandbox.state.events.values()].filter((event) =>
    event.speakers.some((speaker) => speaker.userId === userId),
  ).length;
}

const NEEDLES = [PERSON.email, ...PERSON.clientIds, PERSON.name, PERSON.bio];

for (const ledger of ['embedded', 'postgres'] as const) {
  describe.skipIf(ledger === 'postgres' && !postgresReady)(`evsync forget on the ${ledger} ledger`, () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    let database: Awaited<ReturnType<typeof postgresSchema>> | undefined;
    let env: NodeJS.ProcessEnv = {};
    const run = (args: string[]) => workspace.run(sandbox, args, env);

    beforeAll(async () => {
      workspace = cliWorkspace(`evsync-forget-${ledger}-`);
      setUpJob(workspace.dir);
      sandbox = await workspace.sandbox({
        seed: resolve(workspace.dir, 'demo-data', 'sandbox-seed.yaml'),
      });
      if (ledger === 'postgres') {
        database = await postgresSchema('evsync_forget');
        env = database.env;
      }
    });
    afterAll(async () => {
      await workspace.close();
      await database?.drop();
    });

    it('removes the person, their links and every trace, and later runs suppress them', async () => {
      const first = await run(['run', 'demo.yaml']);
      expect(first.code, first.stderr).toBe(1); // the demo's deliberately bad rows
      const before = sandbox.state.userByEmail(PERSON.email)!;
      expect(before.inConference).toBe(true);
      expect(before.clientIds).toEqual(expect.arrayContaining(PERSON.clientIds));
      expect(speakerLinks(sandbox, before.id)).toBeGreaterThan(0);
      expect(sandbox.state.scheduleOf(before.id).length).toBeGreaterThan(0);

      const dry = await run(['forget', '--client-id', 'cfp-0008', '--dry-run', '--json']);
      expect(dry.code, dry.stderr).toBe(0);
      expect(JSON.parse(dry.stdout)).toMatchObject({
        dryRun: true,
        platformRemoved: [before.id],
        tombstone: null,
      });
      expect(inConference(sandbox)).toBe(true);

      // By the second step's client_id alone: the merged person is found whole.
      const forget = await run(['forget', '--client-id', 'cfp-0008', '--reason', 'request 2026-114']);
      expect(forget.code, forget.stderr).toBe(0);
      expect(forget.stdout).toContain(`removed user ${before.id} from the conference`);
      expect(forget.stdout).toMatch(/Tombstone #\d+: 3 identifier\(s\), hashed/);
      expect(forget.stdout + forget.stderr).not.toContain(PERSON.email);
      expect(inConference(sandbox)).toBe(false);
      expect(speakerLinks(sandbox, before.id)).toBe(0);
      expect(sandbox.state.scheduleOf(before.id)).toEqual([]);

      // Nothing of them in what the ledger keeps.
      if (ledger === 'postgres') {
        const dump = await dumpSchema(database!.schema);
        expect(dump.length).toBeGreaterThan(10_000);
        for (const needle of NEEDLES) expect(dump).not.toContain(needle);
      } else {
        expect(filesHolding(join(workspace.dir, 'data'), NEEDLES)).toEqual([]);
      }

      // Their rows in the first run keep their place and action, and neither the platform
      // id nor the file and line that would find them again.
      const [firstRun] = (JSON.parse((await run(['runs', '--json'])).stdout) as Array<{ id: string }>).slice(
        -1,
      );
      const rows = JSON.parse((await run(['report', firstRun!.id, '--json'])).stdout) as Array<{
        key: string;
        platformId?: number | null;
        origin?: unknown;
      }>;
      const erased = rows.filter((row) => row.key.startsWith('erased:'));
      expect(erased.length).toBeGreaterThan(0);
      for (const row of erased) expect([row.platformId ?? null, row.origin ?? null]).toEqual([null, null]);
      expect(rows.some((row) => row.platformId === before.id)).toBe(false);

      // Three nights with the person still in the export: suppressed, never sent.
      for (let night = 0; night < 3; night++) {
        const again = await run(['run', 'demo.yaml']);
        expect(again.code, again.stderr).toBe(1);
        expect(again.stdout).toMatch(/Suppressed: \d+ rows name a person erased in this conference/);
        expect(inConference(sandbox)).toBe(false);
      }
      // Someone re-adds them by hand: the audit says so, as drift of its own that names nobody.
      const readded = sandbox.state.userByEmail(PERSON.email)!;
      readded.inConference = true;
      const audit = await run(['audit', 'demo.yaml', '--json']);
      expect(audit.code, audit.stderr).toBe(1);
      const drift = (JSON.parse(audit.stdout) as { drift: Array<{ type: string }> }).drift;
      expect(drift.filter((entry) => entry.type === 'erased')).toEqual([
        expect.objectContaining({ kind: 'user', key: `#${readded.id}`, type: 'erased' }),
      ]);
      for (const needle of NEEDLES) expect(audit.stdout).not.toContain(needle);
      readded.inConference = false;

      const full = await run(['run', 'demo.yaml', '--full']);
      expect(full.stdout).toMatch(/Suppressed: \d+ rows/);
      expect(inConference(sandbox)).toBe(false);
      const repair = await run(['audit', 'demo.yaml', '--repair']);
      expect(repair.code, repair.stderr).not.toBe(2);
      expect(inConference(sandbox)).toBe(false);
      const plan = await run(['plan', 'demo.yaml']);
      expect(plan.stdout).toMatch(/Suppressed: \d+ rows/);

      // Lifted by the other identifier: the next run brings them back.
      const undo = await run(['forget', '--undo', '--email', PERSON.email.toUpperCase()]);
      expect(undo.code, undo.stderr).toBe(0);
      expect(undo.stdout).toMatch(/Lifted 1 erasure/);
      const back = await run(['run', 'demo.yaml']);
      expect(back.stdout).not.toMatch(/Suppressed/);
      expect(inConference(sandbox)).toBe(true);
    }, 240_000);
  });
}
