import { describe, expect, it } from 'vitest';
import type { ConformanceContext } from './ledger-conformance.js';

/**
 * What notifications and the run page's chart of calls keep (migration 12), the same on
 * every adapter: a change of state made once, deliveries, runs by job, calls per second.
 */
export function describeNoticesConformance(context: ConformanceContext): void {
  describe('notices, runs by job, calls per second', () => {
    it('changes a job’s state once: the second process to try from the old state loses', async () => {
      const notices = context.ledger().notices();
      await notices.saveSettings('notice-job', { channels: [] });
      const change = {
        problems: [{ rule: 'run_failed', text: 'run R ended aborted' }],
        stateKey: 'run_failed',
        runId: null,
      };
      expect(await notices.changeState('notice-job', '', change)).toBe(true);
      expect(await notices.changeState('notice-job', '', change)).toBe(false);
      const state = await notices.state('notice-job');
      expect(state).toMatchObject({
        stateKey: 'run_failed',
        problems: change.problems,
        settings: { channels: [] },
      });
      // New settings keep the state told; forgetting them removes both.
      await notices.saveSettings('notice-job', { channels: [{ webhook: { url_env: 'X' } }] });
      expect((await notices.state('notice-job'))?.stateKey).toBe('run_failed');
      expect((await notices.states()).map((s) => s.jobName)).toContain('notice-job');
      await notices.forget('notice-job');
      expect(await notices.state('notice-job')).toBeUndefined();
      expect(await notices.changeState('notice-job', 'run_failed', change)).toBe(false);
    });

    it('records deliveries, newest first, with how they ended', async () => {
      const notices = context.ledger().notices();
      const first = await notices.addDelivery({
        jobName: 'deliver-job',
        runId: null,
        event: 'problem',
        channel: 'webhook h',
      });
      const second = await notices.addDelivery({
        jobName: 'deliver-job',
        runId: 'R',
        event: 'recovered',
        channel: 'email to a@b.c',
      });
      await notices.finishDelivery(first, { status: 'failed', attempts: 4, error: 'HTTP 500' });
      await notices.finishDelivery(second, { status: 'sent', attempts: 1 });
      const listed = await notices.deliveries({ jobName: 'deliver-job' });
      expect(listed.map((d) => [d.channel, d.status, d.attempts, d.error])).toEqual([
        ['email to a@b.c', 'sent', 1, null],
        ['webhook h', 'failed', 4, 'HTTP 500'],
      ]);
    });

    it('reads a delivery an older evsync recorded with a webhook’s path as one by origin', async () => {
      const notices = context.ledger().notices();
      // As evsyncs wrote it before webhooks were named by origin (docs/notifications.md).
      const id = await notices.addDelivery({
        jobName: 'old-deliver-job',
        runId: null,
        event: 'problem',
        channel: 'webhook https://hooks.slack.com/services/T1/B1/PATHTOKEN',
      });
      await notices.finishDelivery(id, {
        status: 'failed',
        attempts: 1,
        error:
          'Request cannot be constructed from a URL that includes credentials: https://u:[redacted]@hooks.slack.com/services/T1/B1/PATHTOKEN?token=[redacted]',
      });
      const [read] = await notices.deliveries({ jobName: 'old-deliver-job' });
      expect([read?.channel, read?.error]).toEqual([
        'webhook https://hooks.slack.com',
        'Request cannot be constructed from a URL that includes credentials: https://hooks.slack.com',
      ]);
    });

    it('lists runs by job, status, trigger and time, and each job’s last run and success', async () => {
      const l = context.ledger();
      const a = await l.createRun({ jobName: 'by-job', mode: 'upsert', options: { trigger: 'schedule' } });
      await l.finishRun(a.id, 'completed', {});
      const b = await l.createRun({ jobName: 'by-job', mode: 'upsert' });
      await l.finishRun(b.id, 'aborted', {});
      const skipped = await l.createRun({
        jobName: 'by-job',
        mode: 'upsert',
        options: { trigger: 'schedule' },
      });
      await l.finishRun(skipped.id, 'skipped', {});
      const ids = async (filter: Parameters<typeof l.listRuns>[1]) =>
        (await l.listRuns(10, filter)).map((r) => r.id);
      expect(await ids({ jobName: 'by-job' })).toEqual([skipped.id, b.id, a.id]);
      expect(await ids({ jobName: 'by-job', statuses: ['aborted', 'completed'] })).toEqual([b.id, a.id]);
      expect(await ids({ jobName: 'by-job', trigger: 'schedule' })).toEqual([skipped.id, a.id]);
      expect(await ids({ jobName: 'by-job', trigger: 'manual' })).toEqual([b.id]);
      expect(await ids({ jobName: 'by-job', since: new Date(Date.now() + 60_000) })).toEqual([]);
      const job = (await l.jobRuns()).find((j) => j.jobName === 'by-job');
      expect(job?.last.id).toBe(b.id);
      expect(job?.lastSuccess?.id).toBe(a.id);
      expect(job?.lastCompleted?.id).toBe(a.id);
      // Rows lost for want of data (migration 16): completed, on time, and no success.
      const lossy = await l.createRun({ jobName: 'by-job', mode: 'upsert' });
      const finished = await l.finishRun(lossy.id, 'completed', { created: 3, skipped: 2 }, 2);
      expect(finished.lost).toBe(2);
      expect((await l.getRun(lossy.id))?.lost).toBe(2);
      const after = (await l.jobRuns()).find((j) => j.jobName === 'by-job');
      expect(after?.lastCompleted?.id).toBe(lossy.id);
      expect(after?.lastSuccess?.id).toBe(a.id);
      const counts = (await l.runCounts()).filter((c) => c.jobName === 'by-job');
      expect(counts.map((c) => [c.status, c.count])).toEqual([
        ['aborted', 1],
        ['completed', 2],
        ['skipped', 1],
      ]);
    });

    it('adds calls per second and outcome, and gives them back per bucket with marks', async () => {
      const l = context.ledger();
      const run = await l.createRun({ jobName: 'calls', mode: 'upsert' });
      const at = (s: number) => new Date(Date.UTC(2026, 10, 27, 2, 0, s));
      await l.recordCallSeconds([
        { runId: run.id, at: at(0), outcome: '2xx', calls: 5 },
        { runId: run.id, at: at(0), outcome: '429', calls: 1 },
        { runId: run.id, at: at(2), outcome: '5xx', calls: 2 },
        { runId: run.id, at: at(2), outcome: 'pause', calls: 1 },
      ]);
      // Another process adds to the same second.
      await l.recordCallSeconds([{ runId: run.id, at: at(0), outcome: '2xx', calls: 3 }]);
      const calls = (await l.insights().timeline(run.id)).calls!;
      expect(calls.bucketSeconds).toBe(1);
      expect(calls.points.map((p) => [p.at.toISOString().slice(17, 19), p.calls])).toEqual([
        ['59', {}],
        ['00', { '2xx': 8, '429': 1 }],
        ['01', {}],
        ['02', { '5xx': 2 }],
        ['03', {}],
      ]);
      expect(calls.marks).toEqual([{ at: at(2), kind: 'pause', count: 1 }]);
      expect((await l.insights().timeline('no-such-run')).calls).toBeUndefined();
    });
  });
}
