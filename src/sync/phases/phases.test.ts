import { describe, expect, it } from 'vitest';
import { DependencyGate } from './dependency-gate.js';
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
});
