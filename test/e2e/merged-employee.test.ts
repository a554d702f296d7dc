import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

const HEADER = 'client_id,email,first_name,last_name,company,position';
const JOB = [
  'name: merged-employee',
  'mode: upsert',
  'steps:',
  '  - { name: tickets, mapping: users, source: { csv: ./tickets.csv } }',
  '  - { name: comp, mapping: users, source: { csv: ./comp.csv } }',
  '',
].join('\n');

// One person in two steps: the tickets give a company without a position, the comp list
// another company with a position. The merge took each field on its own and gave Jo the
// job "Editor at Acme Corp", which no source says; the plan named the company only.
describe('company and position of a person merged from two steps', () => {
  const ws = cliWorkspace('evsync-merged-employee-');
  afterAll(() => ws.close());

  it('come from one step, and the conflict names both of what was dropped', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml': JOB,
      'tickets.csv': `${HEADER}\nt-1,jo@example.org,Jo,Bloggs,Acme Corp,\n`,
      'comp.csv': `${HEADER}\nc-1,jo@example.org,Jo,Bloggs,Presse AG,Editor\n`,
    });
    const plan = await ws.run(sandbox, ['plan', 'job.yaml']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      'jo@example.org employee: tickets (company "Acme Corp") wins over comp (company "Presse AG", position "Editor") (precedence; taken whole from one step)',
    );

    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const jo = sandbox.state.conferenceUsers().map((user) => ({
      clientIds: user.clientIds,
      companyName: user.companyName,
      position: user.position,
    }));
    expect(jo).toEqual([{ clientIds: ['t-1', 'c-1'], companyName: 'Acme Corp', position: null }]);
  }, 90_000);
});
