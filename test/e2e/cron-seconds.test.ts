import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliWorkspace, runBuiltCli, type CliWorkspace } from '../helpers/built-cli.js';
import { people, usersCsv } from '../helpers/users-csv.js';

// A six-field cron pattern's first field is seconds: `*/2 * * * * *` fired every two
// seconds. It is refused unless the job says `seconds: true` (README, "Distributed mode").
describe('a schedule with a seconds field', () => {
  let ws: CliWorkspace;
  const job = (schedule: string) =>
    `name: cron\nschedule: ${schedule}\nsteps:\n  - { mapping: users, source: { csv: ./users.csv } }\n`;
  beforeAll(() => {
    ws = cliWorkspace('evsync-cron-');
    ws.write({
      'users.csv': usersCsv(people(2, 'cr')),
      'six.yaml': job("{ cron: '*/2 * * * * *', tz: Europe/Berlin }"),
      'meant.yaml': job("{ cron: '*/2 * * * * *', seconds: true }"),
    });
  });
  afterAll(() => ws.close());

  it('is refused (exit 2), naming the field and both ways out', async () => {
    const refused = await runBuiltCli(['validate', 'six.yaml'], { cwd: ws.dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('schedule.cron');
    expect(refused.stderr).toContain('has six fields: the first is seconds');
    expect(refused.stderr).toContain('seconds: true');
  }, 60_000);

  it('is taken when the job says seconds: true', async () => {
    const taken = await runBuiltCli(['validate', 'meant.yaml'], { cwd: ws.dir });
    expect(taken.code, taken.stderr).toBe(0);
  }, 60_000);
});
