import { describe, expect, it } from 'vitest';
import type { KeyHold } from '../../ledger/ledger-holds.js';
import { DependencyGate, isLoss } from './dependency-gate.js';
import { KeyHolds } from './key-holds.js';

const AMY = { kind: 'user', clientId: 'QWE-1' } as const;
const HOLD: KeyHold = {
  ...AMY,
  runId: 'R1',
  jobName: 'attendees',
  errorCode: 'EVSYNC_KEY_NOW_ANOTHER_PERSON',
  heldAt: new Date('2026-11-29T02:00:00Z'),
};

function store(listed: KeyHold[] = []) {
  const calls: string[] = [];
  return {
    calls,
    listed,
    list: () => Promise.resolve([...listed]),
    hold: (holds: ReadonlyArray<Omit<KeyHold, 'heldAt'>>) => {
      calls.push(`hold ${holds.map((h) => `${h.clientId}@${h.runId}/${h.jobName}`).join(',')}`);
      return Promise.resolve();
    },
    release: (kind: string, keys: readonly string[]) => {
      calls.push(`release ${kind} ${keys.join(',')}`);
      return Promise.resolve(keys.length);
    },
  };
}

describe('key holds in the dependency gate', () => {
  it('skips a dependent of a held key the id map knows, as data lost, naming the refusing run', () => {
    const gate = new DependencyGate(() => true, undefined, new KeyHolds([HOLD]));
    const missing = gate.check([AMY, { kind: 'event', clientId: 's1' }]);
    expect(missing?.why).toBe('held');
    expect(missing?.code).toBe('EVSYNC_PARENT_HELD');
    expect(isLoss('held')).toBe(true);
    expect(missing?.message).toContain('run R1 of job "attendees" refused its user on 2026-11-29');
    expect(gate.check([{ kind: 'user', clientId: 'BOB-1' }])).toBeUndefined();
  });

  it('lets the key go when its user passes in the run, and writes only for keys that were held', async () => {
    const s = store();
    const gate = new DependencyGate(
      () => true,
      undefined,
      new KeyHolds([HOLD], { store: s, runId: 'R2', jobName: 'x' }),
    );
    await gate.passed({ kind: 'user', key: 'BOB-1' });
    expect(s.calls).toEqual([]);
    await gate.passed({ kind: 'user', key: 'T-9', aliases: ['QWE-1'] });
    expect(s.calls).toEqual(['release user QWE-1']);
    expect(gate.check([AMY])).toBeUndefined();
  });

  it('holds a key refused in this run, for this run and in the store', async () => {
    const s = store();
    const holds = new KeyHolds([], { store: s, runId: 'R3', jobName: 'attendees' });
    const gate = new DependencyGate(() => true, undefined, holds);
    await holds.hold(AMY, 'EVSYNC_KEY_NOW_ANOTHER_PERSON');
    expect(s.calls).toEqual(['hold QWE-1@R3/attendees']);
    expect(gate.check([AMY])?.why).toBe('held');
  });

  it('in a plan preview, does not hold a key whose user the job itself sends', () => {
    const inRun = (dep: { clientId: string }) => dep.clientId === 'QWE-1';
    const gate = new DependencyGate(() => true, undefined, new KeyHolds([HOLD], undefined, inRun));
    expect(gate.check([AMY])).toBeUndefined();
  });

  it('reads the holds again before a chunk: another job’s new hold counts, its own release stands', async () => {
    const bob: KeyHold = { ...HOLD, clientId: 'BOB-1', runId: 'R9', jobName: 'other' };
    const s = store([HOLD]);
    const holds = new KeyHolds([HOLD], { store: s, runId: 'R4', jobName: 'program' });
    const gate = new DependencyGate(() => true, undefined, holds);
    await gate.passed({ kind: 'user', key: 'QWE-1' });
    s.listed.push(bob);
    await holds.refresh();
    expect(gate.check([AMY])).toBeUndefined();
    expect(gate.check([{ kind: 'user', clientId: 'BOB-1' }])?.why).toBe('held');
  });
});
