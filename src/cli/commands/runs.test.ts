import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../model/run-record.js';
import { formatRuns, runFilterOf } from './runs.js';

describe('evsync runs filters', () => {
  const now = new Date('2026-11-27T12:00:00Z');

  it('reads a job, statuses, a trigger and a start as a date or an age', () => {
    expect(
      runFilterOf({ job: 'nightly', status: 'aborted,failed', trigger: 'schedule', since: '12h' }, now),
    ).toEqual({
      jobName: 'nightly',
      statuses: ['aborted', 'failed'],
      trigger: 'schedule',
      since: new Date('2026-11-27T00:00:00Z'),
    });
    expect(runFilterOf({ since: '2026-11-26' }, now).since).toEqual(new Date('2026-11-26T00:00:00Z'));
  });

  it('refuses words it does not take, naming those it does', () => {
    expect(() => runFilterOf({ status: 'broken' }, now)).toThrow(/write one of running, completed/);
    expect(() => runFilterOf({ trigger: 'cron' }, now)).toThrow(/manual, schedule, retry, audit/);
    // `evsync retry` starts runs too, and `runs` lists them as such.
    expect(runFilterOf({ trigger: 'retry' }, now)).toEqual({ trigger: 'retry' });
    expect(() => runFilterOf({ since: 'yesterday' }, now)).toThrow(/a date .* or an age/);
  });
});

describe('evsync runs table', () => {
  const run = (id: string, status: RunRecord['status'], options: Record<string, unknown>): RunRecord =>
    ({
      id,
      jobName: 'nightly',
      mode: 'upsert',
      status,
      startedAt: new Date('2026-11-27T02:00:00Z'),
      finishedAt: new Date('2026-11-27T02:01:00Z'),
      counts: {},
      options,
      conference: { id: 1, baseUrl: 'https://conf.example' },
    }) as RunRecord;

  it('says why each aborted run stopped, and the resume that finishes it', () => {
    const text = formatRuns([
      run('20261127-020000-aaaa', 'aborted', {
        aborted: 'the platform could not be reached for 16 intents in a row',
      }),
      run('20261127-010000-bbbb', 'completed', {}),
    ]);
    expect(text).toContain(
      '  20261127-020000-aaaa: the platform could not be reached for 16 intents in a row',
    );
    expect(text).toContain('    finish it with: evsync resume 20261127-020000-aaaa');
    expect(text).not.toContain('evsync resume 20261127-010000-bbbb');
    const nothingLeft = formatRuns([
      run('20261127-030000-cccc', 'aborted', {
        aborted: 'the key was refused',
        nextStep: 'Fix it, then run again.',
      }),
    ]);
    expect(nothingLeft).toContain('    Fix it, then run again.');
    expect(nothingLeft).not.toContain('evsync resume');
  });

  it('says of a stopped run that a later run superseded that nothing is left to send', () => {
    const text = formatRuns([
      {
        ...run('20261127-060000-ffff', 'running', {}),
        processGone: true,
        supersededBy: '20261127-070000-gggg',
      },
    ]);
    expect(text).toContain(
      '  superseded by run 20261127-070000-gggg, which read its rows from the source again since: nothing left to send ' +
        '(evsync resume 20261127-060000-ffff closes it)',
    );
    expect(text).not.toContain('finish it with');
  });

  it('counts a resumed run from its resume, not the time it stood stopped', () => {
    const resumed = run('20261127-040000-dddd', 'completed', { resumedAt: '2026-11-27T02:00:50.000Z' });
    expect(formatRuns([resumed])).toMatch(/ 10\.0s \(resumed\)/);
    expect(formatRuns([run('20261127-050000-eeee', 'completed', {})])).toMatch(/ 60\.0s/);
  });
});
