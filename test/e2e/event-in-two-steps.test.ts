import { afterAll, describe, expect, it } from 'vitest';
import { cliWorkspace } from '../helpers/built-cli.js';

const csv = (...rows: string[]): string =>
  ['client_id,name,description,start,finish', ...rows, ''].join('\n');

// A reviewing helper's find: a session sheet and an extra sheet both had event E-1. The
// later step's row was sent and the earlier row had no result at all: the report and the
// counts lost a row of the source. It is now recorded skipped, naming the row sent instead.
describe('one event key in two steps (built CLI)', () => {
  const ws = cliWorkspace('evsync-event-two-steps-');
  afterAll(() => ws.close());

  it('sends the later step’s row and records the earlier one skipped', async () => {
    const sandbox = await ws.sandbox();
    ws.write({
      'job.yaml':
        'name: sessions\nsteps:\n' +
        '  - { name: main, mapping: events, source: { csv: ./main.csv } }\n' +
        '  - { name: extra, mapping: events, source: { csv: ./extra.csv } }\n',
      'main.csv': csv(
        'E-1,Keynote,Opening,2026-05-01 09:00,2026-05-01 10:00',
        'E-2,Talk,A talk,2026-05-01 11:00,2026-05-01 12:00',
      ),
      'extra.csv': csv('E-1,Keynote (moved),Opening,2026-05-01 13:00,2026-05-01 14:00'),
    });
    const run = await ws.run(sandbox, ['run', 'job.yaml']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^event +2 +0 +0 +0 +0 +1 +0$/m);
    expect(run.stdout).toContain('1 duplicate');
    expect(sandbox.state.eventByClientId('E-1')?.name).toBe('Keynote (moved)');
    const report = await ws.run(sandbox, ['report', 'latest', '--status', 'skipped', '--format', 'json']);
    const rows = JSON.parse(report.stdout) as Array<{
      key: string;
      source: string;
      error_code: string;
      message: string;
    }>;
    expect(rows.map((row) => [row.key, row.source, row.error_code])).toEqual([
      ['E-1#row1', './main.csv', 'EVSYNC_DUPLICATE_ROW'],
    ]);
    expect(rows[0]?.message).toContain('comes again in ./extra.csv row 1');
  }, 90_000);
});
