import { describe, expect, it } from 'vitest';
import type { Intent } from '../../model/intent.js';
import type { MappedItem } from '../mapped-item.js';
import { DependencyCheck, formatDanglingLinks } from './dependency-check.js';

const at = (row: number) => ({ source: 'x.csv', row });
const user = (key: string): Intent =>
  ({ kind: 'user', key, op: 'upsert', params: {}, dependsOn: [] }) as unknown as Intent;
const speaker = (event: string, userKey: string): Intent =>
  ({
    kind: 'speaker',
    key: `${event}/${userKey}`,
    op: 'upsert',
    params: {},
    dependsOn: [
      { kind: 'event', clientId: event },
      { kind: 'user', clientId: userKey },
    ],
  }) as unknown as Intent;
const rows = (intents: Intent[][]): MappedItem[] =>
  intents.map((list, i) => ({ type: 'intents', origin: at(i + 1), intents: list }));

describe('links that name what the job does not create', () => {
  it('counts each missing user or event once, whatever step creates the others, later ones included', () => {
    const check = new DependencyCheck();
    // Links first (a speakers step before the users step), then the users and one event.
    for (const item of rows([
      [speaker('e1', 'u1')],
      [speaker('e1', 'ghost')],
      [speaker('e2', 'ghost')],
      [user('u1')],
      [{ kind: 'event', key: 'e1', op: 'upsert', params: {}, dependsOn: [] } as unknown as Intent],
    ]))
      check.add(item);
    expect(check.result()).toEqual([
      { kind: 'speaker', parent: 'event', missing: 1, examples: ['row 3 → event e2'] },
      { kind: 'speaker', parent: 'user', missing: 1, examples: ['row 2 → user ghost'] },
    ]);
    expect(formatDanglingLinks(check.result())).toContain(
      'speaker intents name 1 user that no step creates (row 2 → user ghost)',
    );
  });

  it('says nothing when every link names something the job creates', () => {
    const check = new DependencyCheck();
    for (const item of rows([[user('u1')], [speaker('e1', 'u1')]])) check.add(item);
    check.add({
      type: 'intents',
      origin: at(3),
      intents: [{ kind: 'event', key: 'e1', op: 'upsert', params: {}, dependsOn: [] } as unknown as Intent],
    });
    expect(check.result()).toEqual([]);
    expect(formatDanglingLinks([])).toBe('');
  });
});
