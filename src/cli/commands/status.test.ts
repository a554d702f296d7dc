import { describe, expect, it } from 'vitest';
import type { QueueStatus } from '../../distributed/queue-status.js';
import type { RunRecord } from '../../model/run-record.js';
import { formatStatus } from './status.js';

function runOf(id: string, conference: RunRecord['conference']): RunRecord {
  return {
    id,
    seq: 1,
    jobName: 'nightly',
    mode: 'upsert',
    status: 'running',
    startedAt: new Date('2026-11-22T01:45:12Z'),
    finishedAt: null,
    counts: {},
    options: {},
    conference,
  };
}

function statusWith(runs: RunRecord[]): QueueStatus {
  return {
    redis: 'redis://127.0.0.1:6379',
    prefix: 'evsync',
    jobs: { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 0 },
    workers: [{ name: 'box:41', serves: ['conf-a.example'], refuses: { 'conf-b.example': 'no key here' } }],
    lanes: [
      {
        id: '0123456789abcdef',
        conference: 'conf-a.example',
        keyId: 7,
        rate: { requestsPerSecond: 50, burst: 1, currentRequestsPerSecond: 50, pausedForMs: 0 },
        declared: [
          { job: 'conf-a', requestsPerSecond: 50, expiresAt: 0 },
          { job: 'bulk', requestsPerSecond: 200, expiresAt: 0 },
        ],
        concurrency: 8,
        jobsPerSecond: 50,
        jobs: { waiting: 12, active: 4, delayed: 0, failed: 0, completed: 0 },
        workers: ['box:41'],
      },
      {
        id: 'fedcba9876543210',
        conference: 'conf-b.example',
        keyId: 3,
        rate: { requestsPerSecond: 20, burst: 1, currentRequestsPerSecond: 7.5, pausedForMs: 2_400 },
        declared: [{ job: 'conf-b', requestsPerSecond: 20, expiresAt: 0 }],
        concurrency: 4,
        jobsPerSecond: 20,
        jobs: { waiting: 30, active: 0, delayed: 0, failed: 0, completed: 0 },
        workers: [],
      },
    ],
    sharedQueue: { waiting: 2, active: 1, delayed: 0, failed: 0, completed: 0 },
    runs: runs.map((run) => ({
      run,
      done: 3,
      planned: 10,
      phase: undefined,
      processGone: false,
      waitingForWorker: false,
    })),
    schedules: [],
  };
}

describe('evsync status', () => {
  it("names each run's conference by host, or says it was not recorded", () => {
    const text = formatStatus(
      statusWith([
        runOf('20261122-014512-aaaa', { id: 1, baseUrl: 'https://conf-a.example' }),
        runOf('20261122-014512-bbbb', null),
      ]),
    );
    expect(text).toContain('  20261122-014512-aaaa  nightly  conf-a.example  3 of 10 intents done');
    expect(text).toContain(
      '  20261122-014512-bbbb  nightly  (conference not recorded)  3 of 10 intents done',
    );
    expect(text).not.toContain('https://');
  });

  it('names the conferences each worker serves and refuses, and each lane with its rate, jobs and workers', () => {
    const text = formatStatus(statusWith([]));
    expect(text).toContain('    box:41 (serves conf-a.example; refuses conf-b.example: no key here)');
    expect(text).toContain(
      '    conf-a.example (key 7, lane 0123456789abcdef): 50 requests/s (burst 1), the lowest of the jobs running with this key: conf-a 50/s, bulk 200/s; ' +
        '8 intents at a time, 50 jobs/s; 12 waiting, 4 active, 0 delayed; workers box:41',
    );
    expect(text).toMatch(/conf-b\.example \(key 3, lane fedcba9876543210\): .*; no worker serves it/);
    // Its workers follow what the platform's 429s left of the rate, not the rate set.
    expect(text).toContain(
      'conf-b.example (key 3, lane fedcba9876543210): 20 requests/s (burst 1), the rate of conf-b 20/s, running; ' +
        "cut to 7.5 requests/s by the platform's 429, recovering (paused 3 s more by the platform's Retry-After);",
    );
    expect(text).toContain('shared queue of runs started before lanes: 2 waiting, 1 active, 0 delayed');
  });
});

describe('status of held keys', () => {
  it('names each held key, its conference, and the run and job that refused it', () => {
    const text = formatStatus(undefined, [], 'UTC', new Date('2026-11-30T07:00:00Z'), [
      {
        kind: 'user',
        clientId: 'QWE-1',
        conference: 'conf-a.example',
        runId: '20261130-0200-ab12',
        jobName: 'attendees',
        errorCode: 'EVSYNC_KEY_NOW_ANOTHER_PERSON',
        heldAt: '2026-11-30T02:00:00.000Z',
      },
    ]);
    expect(text).toContain('Held keys (a run refused their user as now another person');
    expect(text).toContain(
      '  user "QWE-1" on conf-a.example: refused by run 20261130-0200-ab12 of job "attendees" 2026-11-30 02:00',
    );
    expect(text).toContain('see: evsync report 20261130-0200-ab12 --status failed --search QWE-1');
  });
});
