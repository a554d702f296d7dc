import { describe, expect, it } from 'vitest';
import { describeFaults, parseFaultSpec } from './fault-config.js';
import { FaultInjector } from './fault-injector.js';

describe('parseFaultSpec', () => {
  it('reads every item, with fractions, counts, ranges and a seed', () => {
    expect(
      parseFaultSpec('latency=5-20, 503=0.05;reset=0.01,commit-drop=2x,commit-500=1,500=0,seed=7'),
    ).toEqual({
      latency: { minMs: 5, maxMs: 20 },
      error503: { fraction: 0.05 },
      reset: { fraction: 0.01 },
      commitDrop: { next: 2 },
      commit500: { fraction: 1 },
      error500: { fraction: 0 },
      seed: 7,
    });
    expect(parseFaultSpec('latency=50ms')).toEqual({ latency: { minMs: 50, maxMs: 50 } });
    expect(parseFaultSpec('')).toEqual({});
    expect(parseFaultSpec('none')).toEqual({});
  });

  it('refuses unknown faults, bad fractions and backwards ranges, with an example', () => {
    expect(() => parseFaultSpec('explode=1')).toThrow(/unknown fault "explode".*Example/s);
    expect(() => parseFaultSpec('503=1.5')).toThrow(/Bad fault spec/);
    expect(() => parseFaultSpec('503=lots')).toThrow(/Bad fault spec/);
    expect(() => parseFaultSpec('latency=20-5')).toThrow(/maxMs must be at least minMs/);
  });

  it('describes a config as the spec text it came from', () => {
    const spec = 'latency=5-20,503=0.05,commit-drop=2x,seed=7';
    expect(describeFaults(parseFaultSpec(spec))).toBe(spec);
    expect(describeFaults({})).toBe('none');
  });
});

describe('FaultInjector', () => {
  it('fires a `next` fault exactly that many times', () => {
    const faults = new FaultInjector({ error503: { next: 2 } });
    expect(faults.active).toBe(true);
    expect([faults.fires('error503'), faults.fires('error503'), faults.fires('error503')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(faults.fires('reset')).toBe(false);
  });

  it('rolls the same dice for the same seed, and keeps latency within its range', () => {
    const roll = (): boolean[] => {
      const faults = new FaultInjector({ reset: { fraction: 0.5 }, seed: 3 });
      return Array.from({ length: 32 }, () => faults.fires('reset'));
    };
    expect(roll()).toEqual(roll());
    expect(roll()).toContain(true);
    expect(roll()).toContain(false);
    const faults = new FaultInjector({ latency: { minMs: 10, maxMs: 20 } });
    for (let i = 0; i < 50; i += 1)
      expect(faults.latencyMs()).toSatisfy((ms: number) => ms >= 10 && ms <= 20);
    expect(new FaultInjector().active).toBe(false);
    expect(new FaultInjector({ seed: 1 }).active).toBe(false);
  });
});
