import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IntentResultInput } from '../model/result-records.js';
import { BatchResultWriter } from './result-writer.js';

const result = (i: number): IntentResultInput => ({
  runId: 'r',
  kind: 'user',
  key: `k${i}`,
  action: 'created',
});

function recorder(delayMs = 0) {
  const batches: string[][] = [];
  let active = 0;
  let maxActive = 0;
  const record = async (results: readonly IntentResultInput[]): Promise<void> => {
    active += 1;
    maxActive = Math.max(maxActive, active);
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    batches.push(results.map((r) => r.key));
    active -= 1;
  };
  return { batches, record, maxActive: () => maxActive };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('BatchResultWriter', () => {
  it('writes full batches in order, one at a time, and the rest on flush', async () => {
    const rec = recorder(5);
    const writer = new BatchResultWriter(rec.record, { batchSize: 3, flushIntervalMs: 10_000 });
    for (let i = 0; i < 8; i += 1) await writer.write(result(i));
    await writer.flush();
    expect(rec.batches).toEqual([
      ['k0', 'k1', 'k2'],
      ['k3', 'k4', 'k5'],
      ['k6', 'k7'],
    ]);
    expect(rec.maxActive()).toBe(1);
    expect(writer.written).toBe(8);
    expect(writer.buffered).toBe(0);
    await writer.close();
  });

  it('keeps at most one batch in flight while the next fills (bounded memory)', async () => {
    const rec = recorder(20);
    const writer = new BatchResultWriter(rec.record, { batchSize: 2, flushIntervalMs: 10_000 });
    await writer.write(result(0));
    await writer.write(result(1)); // batch 1 starts, nothing before it to wait for
    await writer.write(result(2));
    const started = Date.now();
    await writer.write(result(3)); // batch 2 starts, waits for batch 1
    expect(Date.now() - started).toBeGreaterThanOrEqual(10);
    expect(rec.batches).toEqual([['k0', 'k1']]);
    await writer.close();
    expect(rec.batches).toEqual([
      ['k0', 'k1'],
      ['k2', 'k3'],
    ]);
  });

  it('flushes a partial batch after the interval', async () => {
    vi.useFakeTimers();
    const rec = recorder();
    const writer = new BatchResultWriter(rec.record, { batchSize: 100, flushIntervalMs: 50 });
    await writer.write(result(0));
    await writer.write(result(1));
    expect(rec.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(60);
    expect(rec.batches).toEqual([['k0', 'k1']]);
    expect(writer.written).toBe(2);
    await writer.close();
  });

  it('surfaces a failed write on the next call, with how many results were lost', async () => {
    let calls = 0;
    const writer = new BatchResultWriter(
      () => {
        calls += 1;
        return Promise.reject(new Error('disk full'));
      },
      { batchSize: 2, flushIntervalMs: 10_000, retryDelaysMs: [] },
    );
    await writer.write(result(0));
    await writer.write(result(1));
    await expect(writer.flush()).rejects.toMatchObject({
      code: 'EVSYNC_LEDGER_WRITE',
      retryable: true,
      message: expect.stringContaining('disk full') as unknown,
    });
    await expect(writer.write(result(2))).rejects.toThrow(/2 results were not written/);
    expect(calls).toBe(1);
    await expect(writer.close()).rejects.toMatchObject({ code: 'EVSYNC_LEDGER_WRITE' });
  });

  it('tries a failed batch again before giving up, in order', async () => {
    const rec = recorder();
    let failures = 2;
    const writer = new BatchResultWriter(
      async (results) => {
        if (failures > 0) {
          failures -= 1;
          throw new Error('connection reset');
        }
        await rec.record(results);
      },
      { batchSize: 2, flushIntervalMs: 10_000, retryDelaysMs: [5, 5] },
    );
    for (let i = 0; i < 4; i += 1) await writer.write(result(i));
    await writer.close();
    expect(rec.batches).toEqual([
      ['k0', 'k1'],
      ['k2', 'k3'],
    ]);
    expect(writer.written).toBe(4);
  });

  it('refuses writes after close and closes twice quietly', async () => {
    const rec = recorder();
    const writer = new BatchResultWriter(rec.record);
    await writer.write(result(0));
    await writer.close();
    await writer.close();
    expect(rec.batches).toEqual([['k0']]);
    await expect(writer.write(result(1))).rejects.toMatchObject({ code: 'EVSYNC_LEDGER_CLOSED' });
  });
});
