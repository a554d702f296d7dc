import { describe, expect, it } from 'vitest';
import { mergeExpositions } from './exposition.js';

/** What BullMQ's `exportPrometheusMetrics` writes for one queue (bullmq 5). */
const bullmq = (queue: string, waiting: number): string =>
  [
    '# HELP bullmq_job_count Number of jobs in the queue by state',
    '# TYPE bullmq_job_count gauge',
    `bullmq_job_count{queue="${queue}", state="active"} 0`,
    `bullmq_job_count{queue="${queue}", state="waiting"} ${waiting}`,
    '# HELP bullmq_job_completed_total Total number of completed jobs',
    '# TYPE bullmq_job_completed_total counter',
    `bullmq_job_completed_total{queue="${queue}"} 7`,
  ].join('\n');

describe('mergeExpositions', () => {
  it('writes each family once, its HELP and TYPE first, with every text’s samples of it', () => {
    const merged = mergeExpositions([bullmq('lane-a', 3), bullmq('lane-b', 5)]);
    expect(merged).toBe(
      [
        '# HELP bullmq_job_count Number of jobs in the queue by state',
        '# TYPE bullmq_job_count gauge',
        'bullmq_job_count{queue="lane-a", state="active"} 0',
        'bullmq_job_count{queue="lane-a", state="waiting"} 3',
        'bullmq_job_count{queue="lane-b", state="active"} 0',
        'bullmq_job_count{queue="lane-b", state="waiting"} 5',
        '# HELP bullmq_job_completed_total Total number of completed jobs',
        '# TYPE bullmq_job_completed_total counter',
        'bullmq_job_completed_total{queue="lane-a"} 7',
        'bullmq_job_completed_total{queue="lane-b"} 7',
        '',
      ].join('\n'),
    );
  });

  it('merges the same way when one text holds several queues’ exports (the dashboard’s)', () => {
    const joined = [bullmq('lane-a', 3), bullmq('lane-b', 5)].join('\n');
    expect(mergeExpositions([joined])).toBe(mergeExpositions([bullmq('lane-a', 3), bullmq('lane-b', 5)]));
  });

  it('keeps a histogram’s buckets, sum and count with it, and a sample with no TYPE as it is', () => {
    const registry = [
      '# HELP evsync_call_seconds Duration',
      '# TYPE evsync_call_seconds histogram',
      'evsync_call_seconds_bucket{le="0.1"} 1',
      'evsync_call_seconds_bucket{le="+Inf"} 2',
      'evsync_call_seconds_sum 0.3',
      'evsync_call_seconds_count 2',
      '',
    ].join('\n');
    const merged = mergeExpositions([registry, 'other_thing 4\n', bullmq('intents', 0)]);
    const lines = merged.trimEnd().split('\n');
    expect(lines.slice(0, 6)).toEqual(registry.trimEnd().split('\n'));
    expect(lines[6]).toBe('other_thing 4');
    expect(lines.filter((line) => line.startsWith('# TYPE'))).toHaveLength(3);
  });
});
