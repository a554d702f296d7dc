import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/start-sandbox.js';
import { cliWorkspace, type CliWorkspace } from '../helpers/built-cli.js';

const HEADER =
  'Order #,Order Date,First Name,Last Name,Email,Quantity,Ticket Type,Attendee #,Attendee Status';
const attendees = (status: string): string =>
  [
    HEADER,
    '1001,2026-01-05 10:22:33-08:00,Ada,Lovelace,ada@example.org,1,Speaker Pass,5001,Attending',
    `1002,2026-01-06 09:00:00-08:00,Bob,Buyer,bob@example.com,1,General Admission,5002,${status}`,
    '',
  ].join('\n');

// The shipped Eventbrite mapping and a ticket whose holder said they will not come, through
// the built CLI against a sandbox (issue #30, item 11).
describe('Eventbrite: "Not Attending" is left out like a refund, and plan says who stays', () => {
  let workspace: CliWorkspace;
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    workspace = cliWorkspace('evsync-eventbrite-');
    sandbox = await workspace.sandbox();
    workspace.write({
      'job.yaml': [
        'name: eventbrite',
        'mode: upsert',
        'steps:',
        '  - { mapping: eventbrite, source: { csv: ./attendees.csv } }',
        '',
      ].join('\n'),
    });
  });
  afterAll(async () => workspace.close());

  it('skips a Not Attending ticket on purpose; one synced before stays, and plan says so', async () => {
    workspace.write({ 'attendees.csv': attendees('Not Attending') });
    const validate = await workspace.run(sandbox, ['validate', 'job.yaml']);
    expect(validate.code, validate.stdout).toBe(0);
    expect(validate.stdout).toMatch(/cancelled, refunded or not attending/);

    workspace.write({ 'attendees.csv': attendees('Attending') });
    expect((await workspace.run(sandbox, ['run', 'job.yaml'])).code).toBe(0);
    expect(sandbox.state.userByEmail('bob@example.com')?.inConference).toBe(true);

    workspace.write({ 'attendees.csv': attendees('Not Attending') });
    const plan = await workspace.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /1 user that an earlier run synced is left out on purpose now \(first: eb-5002, cancelled, refunded or not attending .*\): in upsert mode it stays on the platform/,
    );
    const run = await workspace.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout).toBe(0);
    expect(sandbox.state.userByEmail('bob@example.com')?.inConference).toBe(true);
  }, 120_000);
});
