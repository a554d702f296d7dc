import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';
import { onBothLedgers } from '../helpers/both-ledgers.js';

/**
 * docs/sync-engine.md, "Who is who": a platform account that a key of the source maps to is
 * never handed to another person, on either ledger. Tried through the built CLI as an
 * organiser meets it: the first sync gave a speaker another's e-mail (a wrong join), the
 * next sync moves that e-mail to its real owner.
 */
const HEADER = 'client_id,email,first_name,last_name';
// One at a time, so that the row whose e-mail moved is sent first, as the run that renamed
// an account sent it.
const JOB = [
  'name: identity',
  'rate: { per_second: 50, concurrency: 1 }',
  'steps:',
  '  - mapping: users',
  '    source: { csv: users.csv }',
  '',
].join('\n');

/** Every user of the conference as `client_ids: First Last <e-mail>`, sorted. */
function people(sandbox: RunningSandbox): string[] {
  return [...sandbox.state.users.values()]
    .filter((user) => user.inConference)
    .map((user) => `${user.clientIds.join('+')}: ${user.firstName} ${user.lastName} <${user.email}>`)
    .sort();
}

function describeLedger(name: string, ledgerEnv: () => NodeJS.ProcessEnv): void {
  describe(`an account stays its person's (${name} ledger)`, () => {
    let workspace: CliWorkspace;
    let sandbox: RunningSandbox;
    const cli = (...args: string[]) => workspace.run(sandbox, args, ledgerEnv());

    beforeAll(async () => {
      workspace = cliWorkspace('evsync-identity-');
      sandbox = await workspace.sandbox();
    });
    afterAll(async () => workspace.close());

    it('a second sync where an e-mail moved to another person renames no account', async () => {
      // The first sync: a wrong join gave Thomas Ada's e-mail.
      workspace.write({
        'job.yaml': JOB,
        'users.csv': [
          HEADER,
          'sp-2749,ada@example.org,Thomas,Grimes',
          'sp-1,carl@example.org,Carl,Jones',
          '',
        ].join('\n'),
      });
      const first = await cli('run', 'job.yaml');
      expect(first.code, first.stdout + first.stderr).toBe(0);
      const before = people(sandbox);
      expect(before).toEqual([
        'sp-1: Carl Jones <carl@example.org>',
        'sp-2749: Thomas Grimes <ada@example.org>',
      ]);

      // The list is fixed: Ada has her e-mail, Thomas none yet (his row fails on its own).
      workspace.write({
        'users.csv': [
          HEADER,
          'sp-3001,ada@example.org,Ada,Lovelace',
          'sp-2749,,Thomas,Grimes',
          'sp-1,carl@example.org,Carl,Jones',
          '',
        ].join('\n'),
      });
      // The plan shows the account the run would find by e-mail, both names beside each other.
      const plan = await cli('plan', 'job.yaml', '--accounts');
      expect(plan.stdout).toMatch(
        /^ {2}sp-3001 "Ada Lovelace" <ada@example\.org> → platform user \d+ "Thomas Grimes": another name, and key "sp-2749"'s account/m,
      );
      const second = await cli('run', 'job.yaml');
      expect(second.code, second.stdout).toBe(1);
      // Nobody was renamed, and no account took another key.
      expect(people(sandbox)).toEqual(before);

      const runId = /^Run (\S+)/m.exec(second.stdout)![1]!;
      const report = await cli('report', runId, '--status', 'failed', '--csv');
      expect(report.stdout).toContain('sp-3001,failed,users.csv,1,2,,,EVSYNC_ACCOUNT_OF_ANOTHER');
      expect(report.stdout).toContain(
        'is the account of key ""sp-2749"", and this row\'s key ""sp-3001"" is ""Ada Lovelace""',
      );
    }, 60_000);

    it('a person re-keyed by the registration system keeps their account under the new key', async () => {
      workspace.write({
        'users.csv': [HEADER, 'sp-9,carl@example.org,Carl,Jones', ''].join('\n'),
      });
      const run = await cli('run', 'job.yaml');
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const carl = sandbox.state.userByEmail('carl@example.org');
      expect(carl?.clientIds).toEqual(['sp-1', 'sp-9']);
      expect(`${carl?.firstName} ${carl?.lastName}`).toBe('Carl Jones');
    }, 60_000);
  });
}

await onBothLedgers('evsync_identity', describeLedger);
