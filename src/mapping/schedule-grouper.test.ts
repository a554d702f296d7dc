import { describe, expect, it } from 'vitest';
import type { RawRecord, Source } from '../sources/source-row.js';
import { loadMapping } from './load-mapping.js';
import { mapSource } from './map-source.js';
import type { MappedItem } from './mapped-item.js';

/** The shipped `schedules` mapping over rows of `user_client_id,event_client_id`. */
async function schedules(rows: Array<[string, string]>): Promise<MappedItem[]> {
  const mapping = await loadMapping('schedules', { vendor: 'svc' });
  const values: RawRecord[] = rows.map(([user, event]) => ({ user_client_id: user, event_client_id: event }));
  const source: Source = {
    description: 'memory',
    rows: async function* () {
      await Promise.resolve();
      for (const [index, row] of values.entries())
        yield { ok: true, origin: { source: 'mem.csv', row: index + 1, line: index + 2 }, values: row };
    },
  };
  const items: MappedItem[] = [];
  for await (const item of mapSource(source, mapping)) items.push(item);
  return items;
}

const scheduleIntents = (items: MappedItem[]) =>
  items.flatMap((item) => (item.type === 'intents' ? item.intents : []));

describe('ScheduleGrouper', () => {
  it('refuses a row without an event, and sends no schedule for a user who has only such rows', async () => {
    const items = await schedules([
      ['u9', ''],
      ['u8', 'e1'],
    ]);
    expect(items[0]).toEqual({
      type: 'invalid',
      kind: 'schedule',
      origin: { source: 'mem.csv', row: 1, line: 2 },
      params: { 'user[client_id]': 'u9' },
      problems: [
        {
          field: 'event_client_id',
          param: 'event_client_ids[0]',
          code: 'REQUIRED',
          message:
            "row 1 (line 2), event_client_id: the event's client_id is required, but it is missing: each row of a schedule names one event of the user",
        },
      ],
      // u9's schedule on the platform stays: mirror mode must not take it for gone.
      keys: [{ kind: 'schedule', key: 'u9' }],
    });
    // Never an empty replace of u9's schedule.
    expect(scheduleIntents(items).map((intent) => intent.params)).toEqual([
      { 'user[client_id]': 'u8', 'event_client_ids[0]': 'e1' },
    ]);
  });

  it("holds back the whole schedule of a user with an invalid row, naming the row; other users' go", async () => {
    const items = await schedules([
      ['u2', 'e1'],
      ['u2', ''],
      ['u3', 'e2'],
      ['u2', 'e3'],
    ]);
    expect(items.map((item) => item.type)).toEqual([
      'grouped',
      'invalid',
      'grouped',
      'grouped',
      'invalid',
      'intents',
    ]);
    expect(items[4]).toEqual({
      type: 'invalid',
      origin: { source: 'mem.csv', row: 1, line: 2 },
      groupedRows: 2,
      keys: [{ kind: 'schedule', key: 'u2' }],
      problems: [
        {
          field: 'user_client_id',
          param: 'user[client_id]',
          code: 'MAPPING_SCHEDULE_HELD_BACK',
          message:
            "row 1 (line 2), user_client_id: the schedule of u2 is not sent, because its row 2 (line 3) is invalid: a schedule replaces the user's whole schedule, and sending the other 2 rows alone would drop that row's event; fix the row and run again",
        },
      ],
    });
    expect(scheduleIntents(items).map((intent) => intent.key)).toEqual(['u3']);
  });

  it('holds back a schedule whose invalid row comes first, and counts many invalid rows', async () => {
    const items = await schedules([
      ['u4', 'x'.repeat(65)],
      ['u4', ''],
      ['u4', 'e1'],
      ['u4', ''],
      ['u4', ''],
    ]);
    const held = items.at(-1);
    expect(held).toMatchObject({ type: 'invalid', groupedRows: 1, origin: { row: 3 } });
    expect(held?.type === 'invalid' ? held.problems[0]?.message : '').toContain(
      'because 4 of its rows are invalid (row 1 (line 2), row 2 (line 3), row 4 (line 5), …): a schedule replaces',
    );
    expect(scheduleIntents(items)).toEqual([]);
  });

  it('prefixes the message of a repeated (user, event) pair with its row, like every other message', async () => {
    const items = await schedules([
      ['u1', 'e1'],
      ['u1', 'e1'],
    ]);
    expect(items[1]).toMatchObject({
      type: 'duplicate',
      message: 'row 2 (line 3): event e1 is already in the schedule of u1 (row 1); the row is ignored',
    });
  });
});

describe('ScheduleGrouper and rows the source could not read', () => {
  it('holds back every schedule: the unreadable row may be any user’s, and a schedule replaces it all', async () => {
    const mapping = await loadMapping('schedules', { vendor: 'svc' });
    const origin = (row: number) => ({ source: 'mem.csv', row, line: row + 1 });
    const source: Source = {
      description: 'memory',
      rows: async function* () {
        await Promise.resolve();
        yield { ok: true, origin: origin(1), values: { user_client_id: 'u1', event_client_id: 'e1' } };
        yield {
          ok: false,
          origin: origin(2),
          code: 'CSV_RAGGED_ROW',
          message: 'has 3 fields but the header has 2',
        };
        yield { ok: true, origin: origin(3), values: { user_client_id: 'u2', event_client_id: 'e2' } };
      },
    };
    const items: MappedItem[] = [];
    for await (const item of mapSource(source, mapping)) items.push(item);
    expect(scheduleIntents(items)).toEqual([]);
    const held = items.filter((item) => item.type === 'invalid' && item.keys !== undefined);
    expect(held.map((item) => (item.type === 'invalid' ? item.keys : []))).toEqual([
      [{ kind: 'schedule', key: 'u1' }],
      [{ kind: 'schedule', key: 'u2' }],
    ]);
    expect(held[0]).toMatchObject({
      problems: [
        {
          code: 'MAPPING_SCHEDULE_HELD_BACK',
          message:
            "row 1 (line 2), user_client_id: the schedule of u1 is not sent, because the source's row 2 (line 3) could not be read and may be one of its rows: " +
            "a schedule replaces the user's whole schedule, and sending its one readable row alone would drop that row's event; fix the row and run again",
        },
      ],
    });
  });
});
