import { describe, expect, it } from 'vitest';
import type { SearchFilter } from '../../../src/ledger/ledger-insights.js';
import type { IntentResultInput } from '../../../src/model/result-records.js';
import type { ConformanceContext } from './ledger-conformance.js';

function result(
  runId: string,
  i: number,
  extra: Partial<IntentResultInput> = {},
  prefix = 'in',
): IntentResultInput {
  return {
    runId,
    kind: 'user',
    key: `${prefix}-${i}`,
    action: 'created',
    params: { 'user[first_name]': `Name${i}`, 'user[svc_auth_attributes][email]': `in-${i}@example.org` },
    ...extra,
  };
}

/** `Ledger.insights()`: what the dashboard asks, the same on every adapter. */
export function describeInsightsConformance(context: ConformanceContext): void {
  describe('insights', () => {
    it('searches results by key or params text, case-insensitively, with filters and keyset pages', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'insights', mode: 'upsert' });
      await l.recordResults([
        ...Array.from({ length: 20 }, (_, i) => result(run.id, i)),
        result(run.id, 20, {
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'bad 100%_x',
        }),
        result(run.id, 21, {
          kind: 'event',
          key: 'ev-%_1',
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'bad 100%_x',
        }),
        result(run.id, 22, {
          action: 'skipped',
          errorCode: 'EVSYNC_PARENT_MISSING',
          errorMessage: 'parent failed',
        }),
      ]);
      const insights = l.insights();
      const textParams = ['user[first_name]', 'user[svc_auth_attributes][email]'];
      const keys = async (filter: SearchFilter): Promise<string[]> =>
        (await insights.searchResults(run.id, { textParams, ...filter })).results.map((r) => r.key);
      expect(await keys({ text: 'IN-7@EXAMPLE' })).toEqual(['in-7']);
      expect(await keys({ text: 'name1' })).toEqual([
        'in-1',
        ...Array.from({ length: 10 }, (_, i) => `in-${10 + i}`),
      ]);
      // LIKE's own characters are matched as text.
      expect(await keys({ text: '%_1' })).toEqual(['ev-%_1']);
      expect(await keys({ actions: ['failed'], kinds: ['user'] })).toEqual(['in-20']);
      const all = (await l.results(run.id)).map((r) => r.key);
      expect(await everyPage({ limit: 7 })).toEqual(all);
      // A text search reads a window of the run per call: pages of fewer matches, or none,
      // until the run is read to its end, and never a match twice.
      expect(await everyPage({ limit: 2, text: 'name1', textParams, window: 3 })).toEqual(
        await keys({ text: 'name1' }),
      );
      const quiet = await insights.searchResults(run.id, {
        text: 'name1',
        textParams,
        window: 1,
        afterSeq: (await l.results(run.id))[2]!.seq,
      });
      expect(quiet.results).toEqual([]);
      expect(quiet.next).not.toBeNull();
      expect((await insights.searchResults(run.id, { text: 'nobody', window: 100 })).next).toBeNull();

      async function everyPage(filter: SearchFilter): Promise<string[]> {
        const found: string[] = [];
        let after: number | null | undefined;
        for (let calls = 0; after !== null && calls < 100; calls += 1) {
          const page = await insights.searchResults(run.id, {
            ...filter,
            ...(after === undefined ? {} : { afterSeq: after }),
          });
          found.push(...page.results.map((r) => r.key));
          after = page.next;
        }
        return found;
      }
    });

    it('searches the fields a person means, not the stored JSON: quotes, brackets and _ match nothing', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'insights-fields', mode: 'upsert' });
      await l.recordResults([
        ...Array.from({ length: 5 }, (_, i) => result(run.id, i, {}, 'plain')),
        result(run.id, 5, {
          key: 'ada_1',
          params: {
            'user[first_name]': 'Ada',
            'user[last_name]': 'Lovelace',
            'user[acme_auth_attributes][email]': 'ada.l@example.org',
            'user[bio]': 'wrote "notes" [1]',
          },
        }),
        result(run.id, 6, {
          kind: 'event',
          key: 'ev-6',
          params: {
            'event[item_attributes][display_value]': 'Opening keynote',
            'event[item_attributes][article][content]': 'Keynote, 100% fun',
          },
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'sponsor sp-x does not exist',
        }),
      ]);
      const textParams = [
        ['user[first_name]', 'user[last_name]'],
        'user[acme_auth_attributes][email]',
        'event[item_attributes][display_value]',
      ];
      const keys = async (text: string): Promise<string[]> =>
        (await l.insights().searchResults(run.id, { text, textParams })).results.map((r) => r.key);
      // Characters of every row's JSON text and param names: no longer a match for all.
      for (const text of ['"', '[', ']', '{', ':', 'user[', 'first_name', 'svc', 'acme', '1"'])
        expect(await keys(text), text).toEqual([]);
      expect(await keys('_')).toEqual(['ada_1']);
      expect(await keys('%')).toEqual([]);
      // The key, an e-mail address under any vendor word, a name, the whole name, a message.
      expect(await keys('ADA_')).toEqual(['ada_1']);
      expect(await keys('ada.l@')).toEqual(['ada_1']);
      expect(await keys('lovel')).toEqual(['ada_1']);
      expect(await keys('ada lovelace')).toEqual(['ada_1']);
      expect(await keys('keynote')).toEqual(['ev-6']);
      expect(await keys('sp-x')).toEqual(['ev-6']);
      // Other params are not what a person searching for someone means.
      expect(await keys('notes')).toEqual([]);
      expect(await keys('100')).toEqual([]);
    });

    it('groups failed and skipped results by code and message, most first, then by code', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'insights-groups', mode: 'upsert' });
      await l.recordResults([
        result(run.id, 1, {
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'bad name',
        }),
        result(run.id, 2, {
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'bad name',
        }),
        result(run.id, 3, {
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'bad date',
        }),
        result(run.id, 4, { action: 'skipped', errorCode: 'EVSYNC_PARENT_MISSING', errorMessage: 'p' }),
        result(run.id, 5),
      ]);
      expect(await l.insights().errorGroups(run.id)).toEqual([
        {
          action: 'failed',
          code: 'EVSYNC_PLATFORM_INVALID',
          message: 'bad name',
          example: 'bad name',
          count: 2,
          firstKind: 'user',
          firstKey: 'in-1',
        },
        {
          action: 'skipped',
          code: 'EVSYNC_PARENT_MISSING',
          message: 'p',
          example: 'p',
          count: 1,
          firstKind: 'user',
          firstKey: 'in-4',
        },
        {
          action: 'failed',
          code: 'EVSYNC_PLATFORM_INVALID',
          message: 'bad date',
          example: 'bad date',
          count: 1,
          firstKind: 'user',
          firstKey: 'in-3',
        },
      ]);
    });

    it('groups a validation problem of many rows as one line: row prefix and quoted values left out', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'insights-rows', mode: 'upsert' });
      const invalid = (row: number, value: string): Parameters<typeof result>[2] => ({
        action: 'failed',
        errorCode: 'INVALID_EMAIL',
        errorMessage: `row ${row} (line ${row + 1}), email: "${value}" is not an e-mail address`,
      });
      await l.recordResults([
        result(run.id, 1, invalid(1, 'bob@')),
        result(run.id, 2, invalid(2, 'not-an-email')),
        result(run.id, 3, invalid(30, 'x y')),
      ]);
      expect(await l.insights().errorGroups(run.id)).toEqual([
        {
          action: 'failed',
          code: 'INVALID_EMAIL',
          message: 'email: "…" is not an e-mail address',
          example: 'row 1 (line 2), email: "bob@" is not an e-mail address',
          count: 3,
          firstKind: 'user',
          firstKey: 'in-1',
        },
      ]);
    });

    it('groups one platform problem naming a different id in each row as one line, with an example', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'insights-ids', mode: 'upsert' });
      const gone = (id: number): Parameters<typeof result>[2] => ({
        action: 'failed',
        errorCode: 'EVSYNC_PLATFORM_NOT_FOUND',
        errorMessage: `Event 10${id}4 not found (session 77${id})`,
      });
      await l.recordResults([
        result(run.id, 1, gone(1)),
        result(run.id, 2, gone(22)),
        result(run.id, 3, gone(333)),
        result(run.id, 4, {
          action: 'failed',
          errorCode: 'EVSYNC_PLATFORM_INVALID',
          errorMessage: 'Event 9 is full',
        }),
      ]);
      expect(await l.insights().errorGroups(run.id)).toEqual([
        {
          action: 'failed',
          code: 'EVSYNC_PLATFORM_NOT_FOUND',
          message: 'Event N not found (session N)',
          example: 'Event 1014 not found (session 771)',
          count: 3,
          firstKind: 'user',
          firstKey: 'in-1',
        },
        {
          action: 'failed',
          code: 'EVSYNC_PLATFORM_INVALID',
          message: 'Event N is full',
          example: 'Event 9 is full',
          count: 1,
          firstKind: 'user',
          firstKey: 'in-4',
        },
      ]);
    });

    it('counts results per time bucket with empty buckets filled, and tells a key’s history', async () => {
      const l = context.ledger();
      const first = await l.createRun({ jobName: 'insights-history', mode: 'upsert' });
      await l.recordResults([
        result(first.id, 1, { action: 'failed', attempts: 3 }, 'ih'),
        result(first.id, 2, {}, 'ih'),
      ]);
      const second = await l.createRun({ jobName: 'insights-history', mode: 'upsert' });
      await l.recordResults([result(second.id, 1, { action: 'updated' }, 'ih')]);
      const timeline = await l.insights().timeline(first.id);
      expect(timeline.bucketSeconds).toBe(1);
      expect(timeline.points.reduce((sum, p) => sum + p.results, 0)).toBe(2);
      expect(timeline.points.reduce((sum, p) => sum + p.attempts, 0)).toBe(4);
      expect(timeline.points.reduce((sum, p) => sum + p.failed, 0)).toBe(1);
      expect(timeline.points[0]!.results).toBe(0);
      expect((await l.insights().timeline('no-such-run')).points).toEqual([]);
      const history = await l.insights().keyHistory('user', 'ih-1');
      expect(history.map((entry) => [entry.result.runId, entry.result.action, entry.jobName])).toEqual([
        [second.id, 'updated', 'insights-history'],
        [first.id, 'failed', 'insights-history'],
      ]);
    });
  });
}
