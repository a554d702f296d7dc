import { describe, expect, it } from 'vitest';
import { newRunId } from './run-id.js';

describe('newRunId', () => {
  it('is the UTC start time plus a random suffix, so ids sort by start', () => {
    const id = newRunId(new Date('2026-11-22T01:45:12.345Z'));
    expect(id).toMatch(/^20261122-014512-[0-9a-f]{4}$/);
    expect(newRunId(new Date('2026-11-22T01:45:13Z')) > id).toBe(true);
    expect(new Set(Array.from({ length: 50 }, () => newRunId())).size).toBeGreaterThan(45);
  });
});
