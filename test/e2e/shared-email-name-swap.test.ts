import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

// pretix's check-in list without its Secret column: each ticket is keyed by its order and its
// place in the order, and the list is sorted by name. Both tickets of an order carry the
// buyer's e-mail when the event does not ask each attendee for one.
const HEADER = '"Order code","Attendee name","Product","Price","Checked in","Email","Company","Order date"';
const row = (order: string, name: string, email: string, company: string): string =>
  `"${order}","${name}","Ticket","50.00","","${email}","${company}","2026-03-01"`;

// A tester's find: Anna renames herself "Zuri", the sort puts the other ticket holder Zoe
// first, and the keys follow the places. The identity check passed any name under an
// unchanged e-mail, and the buyer's e-mail never changes: Anna's account became Zoe's and
// Zoe's became Zuri's, "updated 2", exit 0. Under one e-mail, names with no word in
// common are now two people.
describe('tickets of one order under the buyer’s e-mail, reordered by a rename', () => {
  const ws = cliWorkspace('evsync-shared-email-swap-');
  afterAll(() => ws.close());

  it.each([
    ['the shipped default', ''],
    ['on_shared_email: suffix', ', on_shared_email: suffix'],
  ])(
    'never gives one holder’s account to the other (%s)',
    async (_, policy) => {
      const sandbox = await ws.sandbox();
      ws.write({
        'job.yaml': `name: door\nsteps:\n  - { mapping: pretix-checkin, source: { csv: ./list.csv }${policy} }\n`,
        'list.csv': [
          HEADER,
          row('ABC12', 'Anna Alpha', 'buyer@example.org', 'Alpha Co'),
          row('QQQ11', 'Mika Solo', 'mika@example.org', ''),
          row('ABC12', 'Zoe Zulu', 'buyer@example.org', 'Zulu Ltd'),
          '',
        ].join('\n'),
      });
      const first = await ws.run(sandbox, ['run', 'job.yaml']);
      const accounts = (): string[] =>
        [...sandbox.state.users.values()]
          .filter((user) => user.clientIds.some((id) => id.startsWith('pretix-ABC12')))
          .map(
            (user) =>
              `${user.clientIds.join('+')}: ${user.firstName} ${user.lastName} ${user.companyName ?? ''}`,
          )
          .sort();
      const before = accounts();
      expect(before.join('\n'), first.stdout + first.stderr).toContain('Anna Alpha');

      ws.write({
        'list.csv': [
          HEADER,
          row('QQQ11', 'Mika Solo', 'mika@example.org', ''),
          row('ABC12', 'Zoe Zulu', 'buyer@example.org', 'Zulu Ltd'),
          row('ABC12', 'Zuri Alpha', 'buyer@example.org', 'Alpha Co'),
          '',
        ].join('\n'),
      });
      // The plan says it ahead, as the run will (it promised "update 2" before).
      const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
      expect(plan.stdout).toMatch(/user updates? a run refuses: the key now names another person/);
      expect(plan.stdout).toMatch(
        /user "pretix-ABC12-1": "Anna Alpha" <buyer@example\.org> when last synced, "Zoe Zulu"/,
      );
      const dryRun = await ws.run(sandbox, ['run', 'job.yaml', '--dry-run']);
      expect(dryRun.code, dryRun.stdout + dryRun.stderr).toBe(1);
      const second = await ws.run(sandbox, ['run', 'job.yaml']);
      expect(second.code, second.stdout + second.stderr).toBe(1);
      const report = await ws.run(sandbox, ['report', 'latest', '--status', 'failed', '--format', 'json']);
      const codes = (JSON.parse(report.stdout) as Array<{ error_code: string }>).map((r) => r.error_code);
      expect(codes).toContain('EVSYNC_KEY_NOW_ANOTHER_PERSON');
      // Nobody's account became another person's.
      expect(accounts()).toEqual(before);
    },
    120_000,
  );
});
