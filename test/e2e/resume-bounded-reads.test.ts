import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/ledger/ledger.js';
import { PlatformClient } from '../../src/platform/platform-client.js';
import { resumeRun } from '../../src/sync/runs/resume-run.js';
import { retryRun } from '../../src/sync/runs/retry-run.js';
import { jobYaml, people, startHarness, usersCsv, type SyncHarness } from './sync-harness.js';

const USERS = 2_500;
/** The most a resume may read in one call: one page (`RESUME_PAGE`). */
const PAGE = 1_000;

/**
 * The ledger as a resume sees it, with the largest answer of each read kept: a resume of a
 * big run pages through it (issue #28 item 3) and never asks for every pending intent, every
 * result or every key later runs handled at once.
 */
function countingLedger(ledger: Ledger, largest: Map<string, number>): Ledger {
  return new Proxy(ledger, {
    get(target, name, receiver) {
      const value: unknown = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const answer: unknown = (value as (...a: unknown[]) => unknown).apply(target, args);
        if (name === 'forConference') return countingLedger(answer as Ledger, largest);
        if (!(answer instanceof Promise)) return answer;
        return answer.then((resolved: unknown) => {
          const size = Array.isArray(resolved)
            ? resolved.length
            : resolved instanceof Set || resolved instanceof Map
              ? resolved.size
              : 0;
          largest.set(String(name), Math.max(largest.get(String(name)) ?? 0, size));
          return resolved;
        });
      };
    },
  });
}

describe('a resume and a retry read the ledger a page at a time', () => {
  let harness: SyncHarness;
  beforeAll(async () => {
    harness = await startHarness();
  }, 180_000);
  afterAll(async () => harness?.close(), 60_000);

  /**
   * Job `name`: `USERS` users (client_ids `prefix`1…) run once, then a contact per user
   * naming the first user, added to the job: dependents whose parents a resume or a retry
   * asks about.
   */
  async function syncedUsersWithContacts(name: string, prefix: string): Promise<void> {
    const users = '  - { mapping: users, source: { csv: ./users.csv } }\n';
    harness.write({ 'users.csv': usersCsv(people(USERS, prefix)), 'job.yaml': jobYaml(name, users) });
    expect((await harness.run('job.yaml')).run.status).toBe('completed');
    const contact = await harness.ledger.getPlatformId('user', `${prefix}1`);
    harness.write({
      'contacts.yaml':
        'version: 1\nintents:\n  - kind: contact\n    params:\n      user_client_id: client_id\n' +
        `      contact_user_id: { column: first_contact, transforms: [{ default: '${contact}' }] }\n`,
      'job.yaml': jobYaml(name, `${users}  - { mapping: ./contacts.yaml, source: { csv: ./users.csv } }\n`),
    });
  }

  /** Every read answered a page or less (the id map and `eachResult` page inside, unseen here). */
  function expectPagedReads(largest: ReadonlyMap<string, number>): void {
    for (const [read, rows] of largest)
      expect({ read, rows: Math.min(rows, PAGE + 1) }).toEqual({ read, rows: Math.min(rows, PAGE) });
  }

  it(`finishes ${USERS} pending contacts of a run without reading more than ${PAGE} rows at once`, async () => {
    await syncedUsersWithContacts('resume-pages', 'rb');
    // The platform down for the whole run: its users are unchanged (no call), its contacts
    // fail until the run stops, aborted, with most of them pending. A completed run keeps no
    // planned intent of a success (docs/ledger.md), so the run must really stop.
    harness.sandbox.faults.set({ error503: { fraction: 1 } });
    const first = await harness.run('job.yaml').finally(() => harness.sandbox.faults.set({}));
    expect(first.run.status).toBe('aborted');
    const runId = first.run.id;
    harness.sandbox.counters.reset();

    const largest = new Map<string, number>();
    const summary = await resumeRun(
      { ...harness.deps(), ledger: countingLedger(harness.ledger, largest) },
      runId,
    );
    expect(summary.run.status).toBe('completed');
    expect(summary.counts.contact?.created).toBe(USERS);
    expect(harness.sandbox.counters.snapshot().total).toBe(USERS);
    // The id cache reads the id map page by page (`idPages`), never as one answer.
    expectPagedReads(largest);
    expect(largest.has('loadIdMap')).toBe(false);
    expect(largest.get('pendingIntents')).toBeGreaterThan(0);
    expect(largest.has('handledLater')).toBe(false);
  }, 180_000);

  it(`retries ${USERS} failed contacts of a run without reading more than ${PAGE} rows at once`, async () => {
    await syncedUsersWithContacts('retry-pages', 'rr');
    // Every contact refused once, and the run told not to stop for it: all of them fail.
    const once = new PlatformClient({
      baseUrl: harness.sandbox.url,
      keyId: harness.sandbox.keyId,
      signingKey: harness.sandbox.signingKey,
      rateLimit: { requestsPerSecond: 5_000, burst: 50, concurrency: 8 },
      retry: { baseDelayMs: 1, maxDelayMs: 1, maxAttempts: 1 },
    });
    harness.sandbox.faults.set({ error503: { fraction: 1 } });
    const first = await harness
      .run('job.yaml', { extra: { platform: once, platformDownLimit: 1_000_000 } })
      .finally(() => harness.sandbox.faults.set({}));
    expect(first.counts.contact?.failed).toBe(USERS);
    harness.sandbox.counters.reset();

    const largest = new Map<string, number>();
    const outcome = await retryRun(
      { ...harness.deps(), ledger: countingLedger(harness.ledger, largest) },
      first.run.id,
    );
    expect(outcome.summary?.run.status).toBe('completed');
    expect(outcome.summary?.counts.contact?.created).toBe(USERS);
    expect(harness.sandbox.counters.snapshot().total).toBe(USERS);
    expectPagedReads(largest);
    expect(largest.get('plannedByResult')).toBe(PAGE);
    expect(largest.get('pendingIntents')).toBeGreaterThan(0);
  }, 180_000);
});
