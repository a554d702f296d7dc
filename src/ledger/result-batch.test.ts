import { describe, expect, it } from 'vitest';
import { REDACTED } from '../log/redaction.js';
import type { IntentResultInput } from '../model/result-records.js';
import { prepareResultBatch } from './result-batch.js';

const base = { runId: 'r1', kind: 'user', key: 'u1' } as const;

describe('prepareResultBatch', () => {
  it('keeps the last result per (run, kind, key) and fills defaults', () => {
    const batch = prepareResultBatch([
      { ...base, action: 'failed', errorMessage: 'first' },
      { ...base, kind: 'event', action: 'created' },
      { ...base, action: 'updated', durationMs: 4.6, attempts: 2 },
      { ...base, runId: 'r2', action: 'skipped' },
    ]);
    expect(batch.results.map((r) => [r.run_id, r.kind, r.action])).toEqual([
      ['r1', 'user', 'updated'],
      ['r1', 'event', 'created'],
      ['r2', 'user', 'skipped'],
    ]);
    expect(batch.results[0]).toMatchObject({
      attempts: 2,
      duration_ms: 5,
      error_message: null,
      origin_source: null,
      params: {},
    });
    expect(batch.results[1]).toMatchObject({ attempts: 1, duration_ms: 0 });
  });

  it('redacts secret params and credentials in messages', () => {
    const [row] = prepareResultBatch([
      {
        ...base,
        action: 'failed',
        params: { 'user[email]': 'a@b.c', 'user[svc_auth_attributes][password]': 'pw', sig: 'abc' },
        errorMessage: 'could not reach postgres://bob:secret@db/x',
      },
    ]).results;
    expect(row?.params).toEqual({
      'user[email]': 'a@b.c',
      'user[svc_auth_attributes][password]': REDACTED,
      sig: REDACTED,
    });
    expect(row?.error_message).toBe(`could not reach postgres://bob:${REDACTED}@db/x`);
  });

  it('sets hash and id after a success, removes both after a delete, leaves them after failed or skipped', () => {
    const inputs: IntentResultInput[] = [
      { ...base, key: 'ok', action: 'created', hash: 'h1', platformId: 7 },
      { ...base, key: 'same', action: 'unchanged', hash: 'h2' },
      { ...base, key: 'gone', action: 'deleted', hash: 'ignored', platformId: 9 },
      { ...base, key: 'bad', action: 'failed', hash: 'h3', platformId: 8 },
      { ...base, key: 'skip', action: 'skipped', hash: 'h4' },
    ];
    const batch = prepareResultBatch(inputs);
    expect(batch.hashUpserts).toEqual([
      { conference_id: 0, kind: 'user', key: 'ok', hash: 'h1', run_id: 'r1' },
      { conference_id: 0, kind: 'user', key: 'same', hash: 'h2', run_id: 'r1' },
    ]);
    expect(batch.hashRemovals).toEqual([{ conference_id: 0, kind: 'user', key: 'gone' }]);
    expect(batch.idUpserts).toEqual([{ conference_id: 0, kind: 'user', key: 'ok', platform_id: 7 }]);
    expect(batch.idRemovals).toEqual([{ conference_id: 0, kind: 'user', key: 'gone' }]);
  });

  it('never sets and removes the same key in one batch: the last outcome wins', () => {
    const batch = prepareResultBatch([
      { ...base, runId: 'r1', action: 'deleted' },
      { ...base, runId: 'r2', action: 'created', hash: 'again', platformId: 3 },
    ]);
    expect(batch.hashRemovals).toEqual([]);
    expect(batch.idRemovals).toEqual([]);
    expect(batch.hashUpserts).toEqual([
      { conference_id: 0, kind: 'user', key: 'u1', hash: 'again', run_id: 'r2' },
    ]);
    expect(batch.idUpserts).toEqual([{ conference_id: 0, kind: 'user', key: 'u1', platform_id: 3 }]);
  });
});
