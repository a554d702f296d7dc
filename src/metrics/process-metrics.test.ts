import { describe, expect, it } from 'vitest';
import { metricsRegistry, noteCall } from './process-metrics.js';

/** The value of one sample line of the exposition text, 0 when absent. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('platform call metrics', () => {
  it('hand the calls noted since the last read to the scrape: counts, buckets, sum', async () => {
    const before = await metricsRegistry().metrics();
    noteCall('2xx', 'POST', 0.004);
    noteCall('2xx', 'POST', 0.02);
    noteCall('2xx', 'POST', 0.03);
    noteCall('5xx', 'PUT', 45);
    const after = await metricsRegistry().metrics();
    const grew = (name: string, labels: string): number =>
      sample(after, name, labels) - sample(before, name, labels);
    expect(grew('evsync_platform_calls_total', 'outcome="2xx",method="POST"')).toBe(3);
    expect(grew('evsync_platform_calls_total', 'outcome="5xx",method="PUT"')).toBe(1);
    const seconds = 'evsync_platform_call_duration_seconds';
    expect(grew(`${seconds}_bucket`, 'le="0.005",outcome="2xx"')).toBe(1);
    expect(grew(`${seconds}_bucket`, 'le="0.01",outcome="2xx"')).toBe(1);
    expect(grew(`${seconds}_bucket`, 'le="0.025",outcome="2xx"')).toBe(2);
    expect(grew(`${seconds}_bucket`, 'le="0.05",outcome="2xx"')).toBe(3);
    expect(grew(`${seconds}_bucket`, 'le="30",outcome="5xx"')).toBe(0);
    expect(grew(`${seconds}_bucket`, 'le="+Inf",outcome="5xx"')).toBe(1);
    expect(grew(`${seconds}_count`, 'outcome="2xx"')).toBe(3);
    expect(grew(`${seconds}_sum`, 'outcome="2xx"')).toBeCloseTo(0.054, 9);
    expect(grew(`${seconds}_sum`, 'outcome="5xx"')).toBeCloseTo(45, 9);
    // Read again with nothing new: nothing counted twice.
    expect(sample(await metricsRegistry().metrics(), `${seconds}_count`, 'outcome="2xx"')).toBe(
      sample(after, `${seconds}_count`, 'outcome="2xx"'),
    );
  });
});
