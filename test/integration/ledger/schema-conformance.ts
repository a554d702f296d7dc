import { describe, expect, it } from 'vitest';
import { migrate } from '../../../src/ledger/migrate.js';
import { MIGRATIONS } from '../../../src/ledger/migrations/index.js';
import type { ConformanceContext } from './ledger-conformance.js';

/** Runs last in the suite: these tests close and reopen the store. */
export function describeSchemaConformance(context: ConformanceContext): void {
  describe('schema, durability and concurrency', () => {
    it('keeps everything across a close and a reopen', async () => {
      const before = await context.ledger().createRun({ jobName: 'durable', mode: 'upsert' });
      await context
        .ledger()
        .recordResults([
          { runId: before.id, kind: 'event', key: 'durable-1', action: 'created', platformId: 31, hash: 'd' },
        ]);
      const reopened = await context.reopen();
      expect(await reopened.getRun(before.id)).toEqual(before);
      expect(await reopened.getPlatformId('event', 'durable-1')).toBe(31);
      expect((await reopened.loadHashes('event')).get('durable-1')).toBe('d');
    });

    it('treats migrations run again as a no-op and records each version once', async () => {
      const fixture = context.fixture();
      if (!fixture.sharedAccess) await context.ledger().close();
      const client = await fixture.openClient();
      try {
        const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
        expect(await migrate(client)).toEqual({ version: latest, applied: [] });
        expect(await migrate(client)).toEqual({ version: latest, applied: [] });
        const rows = await client.query<{ version: number }>(
          'SELECT version FROM evsync_schema_version ORDER BY version',
        );
        expect(rows.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((m) => m.version));
      } finally {
        await client.close();
      }
      if (!fixture.sharedAccess) await context.reopen();
    });

    it('migrates a new store once when several processes open it at the same time', async () => {
      const fresh = await context.fixture().fresh();
      try {
        const opening = [fresh.openLedger(), fresh.openLedger(), fresh.openLedger()];
        const outcomes = await Promise.allSettled(opening);
        const opened = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
        if (fresh.sharedAccess) {
          expect(opened).toHaveLength(3);
        } else {
          // One process at a time: the others are told clearly, nothing is corrupted.
          expect(opened).toHaveLength(1);
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected')
              expect(outcome.reason).toMatchObject({ code: 'EVSYNC_LEDGER_BUSY' });
          }
        }
        const run = await opened[0]?.createRun({ jobName: 'concurrent', mode: 'upsert' });
        expect(run?.status).toBe('running');
        await Promise.all(opened.map((l) => l.close()));
        const client = await fresh.openClient();
        try {
          const rows = await client.query<{ n: number | string }>(
            'SELECT count(*) AS n FROM evsync_schema_version',
          );
          expect(Number(rows[0]?.n)).toBe(MIGRATIONS.length);
        } finally {
          await client.close();
        }
      } finally {
        await fresh.cleanup();
      }
    });

    it('refuses to open a store migrated by a newer evsync', async () => {
      const fixture = context.fixture();
      await context.ledger().close();
      const client = await fixture.openClient();
      const future = {
        version: 9999,
        name: 'from-the-future',
        sql: 'CREATE TABLE future_thing (id integer)',
      };
      try {
        expect((await migrate(client, [...MIGRATIONS, future])).applied).toEqual([9999]);
      } finally {
        await client.close();
      }
      await expect(fixture.openLedger()).rejects.toMatchObject({
        code: 'EVSYNC_LEDGER_TOO_NEW',
        message: expect.stringContaining('9999') as unknown,
      });
    });

    it('refuses use after close with a clear error', async () => {
      await expect(context.ledger().listRuns()).rejects.toMatchObject({ code: 'EVSYNC_LEDGER_CLOSED' });
      await context.ledger().close();
    });
  });
}
