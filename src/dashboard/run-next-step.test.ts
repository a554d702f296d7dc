import { describe, expect, it } from 'vitest';
import { nextStep, statusLabel } from './run-next-step.js';

const run = (
  status: string,
  failed = 0,
  more: { processGone?: boolean; pruned?: string; lost?: number } = {},
) => ({
  status,
  processGone: more.processGone ?? false,
  counts: { created: 5, failed, skipped: more.lost ?? 0 },
  lost: more.lost ?? 0,
  pruned: more.pruned ?? null,
});

describe('nextStep', () => {
  it('offers a retry, and no resume, for a completed run with failed rows', () => {
    const step = nextStep(run('completed', 12));
    expect(step).toMatchObject({ primary: 'retry', retry: true, resume: false });
    expect(step.advice).toContain('12 rows failed');
    expect(step.advice).toContain('Nothing is left to resume');
  });

  it('says what a run that lost rows left undone, and that a retry of it has nothing to send', () => {
    const step = nextStep(run('completed', 0, { lost: 3 }));
    expect(step).toMatchObject({ primary: 'rerun', retry: false, resume: false });
    expect(step.advice).toContain('3 rows were lost for want of data');
    expect(step.advice).toContain('held as now another person');
    expect(step.advice).not.toContain('without failures');
    const both = nextStep(run('completed', 2, { lost: 1 }));
    expect(both).toMatchObject({ primary: 'retry', retry: true });
    expect(both.advice).toContain('1 row was also lost for want of data');
  });

  it('offers neither for a completed run without failures', () => {
    expect(nextStep(run('completed'))).toMatchObject({ primary: 'rerun', retry: false, resume: false });
  });

  it.each([
    ['interrupted', false],
    ['aborted', false],
    ['running', true],
  ])('offers a resume, and no retry, for a stopped run (%s, process gone: %s)', (status, processGone) => {
    const step = nextStep(run(status, 3, { processGone }));
    expect(step).toMatchObject({ primary: 'resume', resume: true, retry: false });
    expect(step.advice).toMatch(/^It stopped before its end \((interrupted|aborted|cut off)\): Resume/);
  });

  it('offers nothing while a run goes on', () => {
    expect(nextStep(run('running', 2))).toMatchObject({ primary: 'wait', retry: false, resume: false });
  });

  it('offers only a new run for a failed tick, a skipped run and a pruned one', () => {
    for (const facts of [run('failed'), run('skipped'), run('completed', 4, { pruned: 'pruned' })]) {
      expect(nextStep(facts)).toMatchObject({ primary: 'rerun', retry: false, resume: false });
    }
  });
});

describe('statusLabel', () => {
  it('does not call a run with failed rows a plain success', () => {
    expect(statusLabel(run('completed', 12))).toEqual({
      label: 'completed, 12 failed',
      tone: 'completed-failed',
    });
    expect(statusLabel(run('completed'))).toEqual({ label: 'completed', tone: 'completed' });
    // Rows lost for want of data made the run exit 1: not a success either.
    expect(statusLabel(run('completed', 0, { lost: 4 }))).toEqual({
      label: 'completed, 4 lost',
      tone: 'completed-failed',
    });
    expect(statusLabel(run('completed', 2, { lost: 4 })).label).toBe('completed, 2 failed, 4 lost');
    expect(statusLabel(run('running', 1, { processGone: true }))).toEqual({
      label: 'cut off',
      tone: 'cut-off',
    });
  });
});
