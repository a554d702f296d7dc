import { describe, expect, it } from 'vitest';
import { runTook, tookNote, type RunRecord } from './run-record.js';

const run = (
  finishedAt: Date | null,
  options: Record<string, unknown> = {},
): Pick<RunRecord, 'startedAt' | 'finishedAt' | 'options'> => ({
  startedAt: new Date('2026-11-30T02:00:00Z'),
  finishedAt,
  options,
});

describe('how long a run took', () => {
  it('is until its end, since its resume when resumed', () => {
    expect(runTook(run(new Date('2026-11-30T02:00:05Z')))).toEqual({
      seconds: 5,
      resumed: false,
      cutOff: false,
    });
    const resumed = run(new Date('2026-11-30T03:00:05Z'), { resumedAt: '2026-11-30T03:00:00Z' });
    expect(tookNote(runTook(resumed)!)).toBe(' (resumed)');
  });

  it('is unknown while it runs, and until its last result once cut off', () => {
    expect(runTook(run(null))).toBeUndefined();
    const took = runTook(run(null), new Date('2026-11-30T02:00:12Z'))!;
    expect(took).toEqual({ seconds: 12, resumed: false, cutOff: true });
    expect(tookNote(took)).toBe(' (until cut off)');
  });
});
