import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { onBothLedgers } from '../helpers/both-ledgers.js';

/**
 * docs/sync-engine.md, "Who is who": merging people across steps, and rows of one step
 * sharing an e-mail, never fuse two people. Each case through the built CLI against its own
 * sandbox: every person lands once with their own e-mail and name, or the run exits 1 naming
 * the conflict; every row has a result; both ledgers decide alike.
 */
const HEADER = 'client_id,email,first_name,last_name';
const csv = (...rows: string[]): string => [HEADER, ...rows, ''].join('\n');
const job = (name: string, files: readonly string[]): string =>
  [
    `name: ${name}`,
    'rate: { per_second: 200, concurrency: 4 }',
    'steps:',
    ...files.flatMap((file) => [
      `  - name: ${file.replace('.csv', '')}`,
      '    mapping: users',
      `    source: { csv: ${file} }`,
    ]),
    '',
  ].join('\n');

/** Every user of the conference as `First Last <e-mail> [client_ids]`, sorted. */
function people(sandbox: RunningSandbox): string[] {
  return [...sandbox.state.users.values()]
    .filter((user) => user.inConference)
    .map((user) => `${user.firstName} ${user.lastName} <${user.email}> [${user.clientIds.join(',')}]`)
    .sort();
}

function describeLedger(name: string, ledgerEnv: () => NodeJS.ProcessEnv): void {
  describe(`merges never fuse two people (${name} ledger)`, () => {
    let workspace: CliWorkspace;
    beforeAll(() => {
      workspace = cliWorkspace('evsync-merges-');
    });
    afterAll(async () => workspace.close());

    /** Runs `job.yaml` of these files against a new sandbox; the failed rows' report as CSV. */
    async function runCase(files: Record<string, string>): Promise<{
      code: number | null;
      stdout: string;
      sandbox: RunningSandbox;
      report: string;
    }> {
      const sandbox = await workspace.sandbox();
      const steps = Object.keys(files).filter((file) => file.endsWith('.csv'));
      workspace.write({ ...files, 'job.yaml': job('merges', steps) });
      const run = await workspace.run(sandbox, ['run', 'job.yaml'], ledgerEnv());
      const runId = /^Run (\S+)/m.exec(run.stdout)?.[1] ?? 'none';
      const report = await workspace.run(sandbox, ['report', runId, '--csv'], ledgerEnv());
      return { code: run.code, stdout: run.stdout + run.stderr, sandbox, report: report.stdout };
    }

    it('one client_id given to two people by two steps: both rows refused and named, nobody dropped', async () => {
      const { code, stdout, sandbox, report } = await runCase({
        'tickets.csv': csv('17,alice@example.org,Alice,T', '18,carol@example.org,Carol,D'),
        'comp.csv': csv('17,bob@example.org,Bob,C'),
      });
      expect(code, stdout).toBe(1);
      expect(people(sandbox)).toEqual(['Carol D <carol@example.org> [18]']);
      const rows = report.trim().split('\n').slice(1);
      // Every row of every step has a result.
      expect(rows).toHaveLength(3);
      const refused = rows.filter((row) => row.includes('EVSYNC_ONE_KEY_TWO_PEOPLE'));
      expect(refused).toHaveLength(2);
      for (const row of refused) {
        expect(row).toContain('tickets: tickets.csv row 1 (line 2) (alice@example.org, ""Alice T"")');
        expect(row).toContain('comp: comp.csv row 1 (line 2) (bob@example.org, ""Bob C"")');
      }
    }, 90_000);

    it('a cycle of ids across three steps is refused with every row named', async () => {
      const { code, stdout, sandbox, report } = await runCase({
        'one.csv': csv('A,e1@example.org,Ann,One', 'B,e2@example.org,Ben,Two', 'C,e3@example.org,Cid,Three'),
        'two.csv': csv('B,e1@example.org,Ann,One', 'C,e2@example.org,Ben,Two'),
        'three.csv': csv('A,e3@example.org,Cid,Three'),
      });
      expect(code, stdout).toBe(1);
      expect(people(sandbox)).toEqual([]);
      const rows = report.trim().split('\n').slice(1);
      expect(rows).toHaveLength(6);
      expect(rows.every((row) => row.includes(',failed,') && row.includes('EVSYNC_ONE_KEY_TWO_PEOPLE'))).toBe(
        true,
      );
    }, 90_000);

    it('a Kelvin sign in an e-mail is no k: the second person is refused, the first keeps her account', async () => {
      const { code, stdout, sandbox, report } = await runCase({
        'users.csv': csv('k1,kate@example.org,Kate,Smith', 'k2,\u212Aate@example.org,Kelvin,Jones'),
      });
      expect(code, stdout).toBe(1);
      expect(people(sandbox)).toEqual(['Kate Smith <kate@example.org> [k1]']);
      expect(report).toMatch(/k2,failed,users\.csv,2,3,,,INVALID_EMAIL,.*contains U\+212A/);
    }, 90_000);

    it('two ticket holders of one order: the second is reported, counted apart, and exits 1', async () => {
      const { code, stdout, sandbox, report } = await runCase({
        'orders.csv': csv(
          't1,buyer@example.org,Anna,Muster',
          't2,buyer@example.org,Ben,Muster',
          't3,BUYER@example.org,anna,muster',
        ),
      });
      expect(code, stdout).toBe(1);
      expect(stdout).toMatch(/^Shared e-mails: 1 row gives another person's e-mail/m);
      expect(people(sandbox)).toEqual(['Anna Muster <buyer@example.org> [t1]']);
      expect(report).toMatch(
        /t2,failed,orders\.csv,2,3,,,MAPPING_SHARED_EMAIL,.*same e-mail ""buyer@example.org"" as row 1, a different person \(""Ben Muster""\)/,
      );
      // The same person again is the duplicate it was (the users mapping: on_duplicate: error), not a shared e-mail.
      expect(report).toMatch(/t3#row3,failed,orders\.csv,3,4,,,MAPPING_DUPLICATE,/);
    }, 90_000);
  });
}

await onBothLedgers('evsync_merges', describeLedger);
