import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { DependencyGate } from './dependency-gate.js';
import { withoutMissingPicks } from './schedule-picks.js';
import { phaseOf, splitByPhase } from './sync-phases.js';

describe('phases', () => {
  it('orders users, events, links, then link deletes before object deletes', () => {
    expect(phaseOf({ kind: 'user', plannedAction: 'create' })).toBe('users');
    expect(phaseOf({ kind: 'event', plannedAction: 'update' })).toBe('events');
    expect(phaseOf({ kind: 'speaker', plannedAction: 'create' })).toBe('links');
    expect(phaseOf({ kind: 'schedule', plannedAction: 'delete' })).toBe('unlinks');
    expect(phaseOf({ kind: 'user', plannedAction: 'delete' })).toBe('removals');
    // After whole schedules (a schedule PUT replaces what RSVPs add) and their clears.
    expect(phaseOf({ kind: 'rsvp', plannedAction: 'create' })).toBe('rsvps');
    expect(phaseOf({ kind: 'rsvp', plannedAction: 'delete' })).toBe('unlinks');
    const split = splitByPhase([
      { kind: 'speaker', plannedAction: 'create' },
      { kind: 'user', plannedAction: 'create' },
    ] as const);
    expect([...split.keys()]).toEqual(['users', 'events', 'links', 'unlinks', 'rsvps', 'removals']);
    expect(split.get('users')).toHaveLength(1);
  });
});

describe('DependencyGate', () => {
  it('lets a link go when its parents succeeded in this run or are in the id map', () => {
    const gate = new DependencyGate((dep) => dep.clientId === 'old');
    gate.settle({ kind: 'user', clientId: 'u1' }, true);
    expect(
      gate.check([
        { kind: 'user', clientId: 'u1' },
        { kind: 'event', clientId: 'old' },
      ]),
    ).toBeUndefined();
  });

  it('names the parent that failed in this run, with its reason', () => {
    const gate = new DependencyGate(() => true);
    gate.settle({ kind: 'event', clientId: 'e1' }, false, 'POST /event answered 422');
    expect(gate.check([{ kind: 'event', clientId: 'e1' }])?.message).toBe(
      'skipped because event "e1" did not sync in this run: POST /event answered 422',
    );
  });

  it('names a parent that is neither in this run nor synced before', () => {
    const gate = new DependencyGate(() => false);
    expect(gate.check([{ kind: 'user', clientId: 'ghost' }])?.message).toMatch(/user "ghost" is unknown/);
  });

  it('says which run deleted a parent the id map no longer has, and counts it as meant', async () => {
    const at = new Date('2026-05-02T03:04:05Z');
    const gate = new DependencyGate(
      () => false,
      (parents) =>
        Promise.resolve(
          new Map(
            parents
              .filter((p) => p.clientId === 's1')
              .map((p) => [`${p.kind}\u0000${p.clientId}`, { runId: 'R1', action: 'deleted' as const, at }]),
          ),
        ),
    );
    const [missing] = await gate.missing([{ kind: 'event', clientId: 's1' }]);
    expect(missing).toMatchObject({
      why: 'deleted',
      code: 'EVSYNC_PARENT_DELETED',
      message: 'skipped because event "s1" was deleted by run R1 on 2026-05-02',
    });
    expect(missing?.message).not.toMatch(/never|unknown/);
  });

  it('skips on purpose what names a parent a `when:` condition left out, unless the parent is there', async () => {
    const gate = new DependencyGate((dep) => dep.clientId === 'known');
    gate.filtered({ kind: 'user', clientId: 'u3' }, 'refunded ticket');
    gate.filtered({ kind: 'user', clientId: 'known' }, 'refunded ticket');
    expect(await gate.first([{ kind: 'user', clientId: 'u3' }])).toMatchObject({
      why: 'filtered',
      code: 'EVSYNC_PARENT_SKIPPED',
    });
    expect(await gate.first([{ kind: 'user', clientId: 'known' }])).toBeUndefined();
  });
});

describe('a schedule with missing events', () => {
  const schedule: PlannedIntent = {
    kind: 'schedule',
    key: 'u1',
    op: 'upsert',
    plannedAction: 'update',
    params: {
      'user[client_id]': 'u1',
      'event_client_ids[0]': 's1',
      'event_client_ids[1]': 's2',
      'event_client_ids[2]': 's3',
    },
    origin: null,
    dependsOn: [
      { kind: 'user', clientId: 'u1' },
      { kind: 'event', clientId: 's1' },
      { kind: 'event', clientId: 's2' },
      { kind: 'event', clientId: 's3' },
    ],
    hash: 'planned',
  };

  it('goes with the events that exist, renumbered, a hash of what is sent and a warning naming each missing one', async () => {
    const gate = new DependencyGate((dep) => dep.clientId !== 's1' && dep.clientId !== 's3');
    gate.filtered({ kind: 'event', clientId: 's3' }, 'a draft');
    const partial = withoutMissingPicks(schedule, await gate.missing(schedule.dependsOn), () => false);
    expect(partial?.item.params).toEqual({ 'user[client_id]': 'u1', 'event_client_ids[0]': 's2' });
    expect(partial?.item.hash).not.toBe('planned');
    // One pick in no source: data lost.
    expect(partial?.code).toBe('EVSYNC_SCHEDULE_PICKS_MISSING');
    expect(partial?.warning).toMatch(
      /^sent without 2 of its 3 events: event "s1" is unknown.*; event "s3" was filtered out/,
    );
  });

  it('keeps an event that failed its update in this run but is on the platform, and is skipped without its user', async () => {
    const gate = new DependencyGate(() => true);
    gate.settle({ kind: 'event', clientId: 's2' }, false, '422');
    const kept = withoutMissingPicks(schedule, await gate.missing(schedule.dependsOn), () => true);
    expect(kept).toMatchObject({ warning: '', item: { hash: 'planned' } });
    gate.settle({ kind: 'user', clientId: 'u1' }, false, '422');
    expect(withoutMissingPicks(schedule, await gate.missing(schedule.dependsOn), () => true)).toBeUndefined();
  });
});
