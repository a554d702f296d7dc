import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { YamlFileError } from '../config/yaml-file.js';
import { allowedDeletes, loadJobFile, resolveJobPath } from './job-file.js';

const dir = mkdtempSync(join(tmpdir(), 'evsync-job-'));
function jobFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

describe('job files', () => {
  it('loads a job with defaults and resolves paths against its folder', () => {
    const job = loadJobFile(
      jobFile(
        'ok.yaml',
        `name: preconference
steps:
  - { mapping: users, source: { csv: ./data/users.csv } }
  - mapping: schedules
    schedule_mode: rsvp
    source:
      postgres: { url_env: SOURCE_DB_URL, query: "select * from s where conf = :conf", params: { conf: 7 } }
`,
      ),
    );
    expect(job).toMatchObject({
      name: 'preconference',
      mode: 'upsert',
      rate: { per_second: 10, concurrency: 4 },
      delete_threshold: { percent: 10 },
      baseDir: dir,
    });
    expect(job.steps[0]?.source).toEqual({ csv: { path: './data/users.csv' } });
    expect(job.steps[1]?.source).toEqual({
      postgres: {
        url_env: 'SOURCE_DB_URL',
        query: 'select * from s where conf = :conf',
        params: { conf: 7 },
      },
    });
    expect(resolveJobPath(job, './data/users.csv')).toBe(join(dir, 'data/users.csv'));
  });

  it('refuses a six-field cron (seconds) unless the schedule says seconds: true', () => {
    const steps = 'steps:\n  - { mapping: users, source: { csv: ./u.csv } }\n';
    expect(() =>
      loadJobFile(jobFile('sec.yaml', `name: sec\nschedule: { cron: '*/2 * * * * *' }\n${steps}`)),
    ).toThrow(/schedule\.cron.*six fields: the first is seconds/s);
    const meant = loadJobFile(
      jobFile('meant.yaml', `name: meant\nschedule: { cron: '*/2 * * * * *', seconds: true }\n${steps}`),
    );
    expect(meant.schedule).toEqual({ cron: '*/2 * * * * *', timezone: 'UTC' });
    expect(
      loadJobFile(jobFile('five.yaml', `name: five\nschedule: { cron: '0 2 * * *' }\n${steps}`)).schedule
        ?.cron,
    ).toBe('0 2 * * *');
  });

  it('reads a retention and names a bad one', () => {
    const steps = 'steps:\n  - { mapping: users, source: { csv: ./u.csv } }\n';
    const job = loadJobFile(
      jobFile('kept.yaml', `name: kept\nretention: { older_than: 90d, keep_runs: 30 }\n${steps}`),
    );
    expect(job.retention).toEqual({ older_than: '90d', keep_runs: 30 });
    expect(() =>
      loadJobFile(jobFile('months.yaml', `name: m\nretention: { older_than: 3mo }\n${steps}`)),
    ).toThrow(/retention\.older_than.*12h \(hours\), 90d \(days\) or 2w \(weeks\)/s);
    expect(() => loadJobFile(jobFile('empty-ret.yaml', `name: e\nretention: {}\n${steps}`))).toThrow(
      /retention.*say what to keep/s,
    );
  });

  it('reports all problems at once with file, line and path', () => {
    const file = jobFile(
      'bad.yaml',
      `name: "pre conf"
mode: mirrror
delete_threshold: 120%
steps:
  - { mapping: users, source: { csvv: ./users.csv } }
  - mapping: schedules
    source:
      postgres: { url_env: "postgres://u:pw@h/db", query: "select 1" }
`,
    );
    let error: unknown;
    try {
      loadJobFile(file);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(YamlFileError);
    const issues = (error as YamlFileError).issues.map((i) => `${i.line}:${i.path}`);
    expect(issues).toEqual([
      '1:name',
      '2:mode',
      '3:delete_threshold',
      '5:steps.0.source',
      '8:steps.1.source.postgres.url_env',
    ]);
    expect((error as Error).message).toContain('give exactly one source kind: csv, postgres');
  });

  it('names a YAML syntax error with its line', () => {
    const file = jobFile('syntax.yaml', 'name: x\nsteps:\n  - { mapping: users\n');
    expect(() => loadJobFile(file)).toThrow(/syntax\.yaml:\d+: \(top level\): YAML syntax/);
  });

  it('turns the delete threshold into an allowed count', () => {
    expect(allowedDeletes({ percent: 10 }, 1234)).toBe(123);
    expect(allowedDeletes({ count: 5 }, 1234)).toBe(5);
  });
});
