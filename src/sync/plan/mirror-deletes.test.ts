import { describe, expect, it } from 'vitest';
import type { IntentKind } from '../../model/intent.js';
import { planMirrorDeletes, type MirrorDeleteInput } from './mirror-deletes.js';

// A speaker re-keyed in the source (pretalx code `CODE` one night, numeric id `26` the next)
// is one platform user: the id map gives both keys user 7. Their links name the same
// platform records, so the gone ones are retired, never deleted.
describe('planMirrorDeletes: links and schedules whose platform records a live key names', () => {
  const ids = new Map<IntentKind, ReadonlyMap<string, number>>([
    [
      'user',
      new Map([
        ['px-CODE', 7],
        ['px-26', 7],
        ['px-OTHER', 8],
        ['px-LEFT', 9],
      ]),
    ],
    [
      'event',
      new Map([
        ['talk', 5],
        ['talk-old', 5],
        ['panel', 6],
      ]),
    ],
  ]);
  const input = (
    known: Partial<Record<IntentKind, string[]>>,
    live: Partial<Record<IntentKind, string[]>>,
  ): MirrorDeleteInput => ({
    seen: new Map(Object.entries(live).map(([kind, keys]) => [kind as IntentKind, new Set(keys)])),
    liveLinks: (kind) => live[kind] ?? [],
    knownKeys: (kind) => Promise.resolve(known[kind] ?? []),
    ids,
    threshold: { percent: 100 },
    force: false,
  });
  const planned = (deletes: Awaited<ReturnType<typeof planMirrorDeletes>>['deletes']) =>
    deletes.map((item) => `${item.plannedAction} ${item.kind} ${item.key}`);

  it('retires a gone link whose event and user a live key maps to, and deletes the others', async () => {
    const mirror = await planMirrorDeletes(
      input(
        { speaker: ['talk/px-CODE', 'panel/px-CODE', 'talk/px-LEFT', 'talk-old/px-OTHER'] },
        // `talk-old` is a re-keyed event (platform event 5, as `talk`).
        { speaker: ['talk/px-26', 'talk/px-OTHER'] },
      ),
    );
    expect(planned(mirror.deletes)).toEqual([
      'retire speaker talk/px-CODE',
      'delete speaker panel/px-CODE',
      'delete speaker talk/px-LEFT',
      'retire speaker talk-old/px-OTHER',
    ]);
    // Retired keys are not deletes: the threshold counts only what is removed.
    expect(mirror.counts).toEqual([{ kind: 'speaker', deletes: 2, known: 4, allowed: 4 }]);
  });

  it('applies to schedules (a delete clears the user’s), RSVPs and contacts, and reads platform ids', async () => {
    const mirror = await planMirrorDeletes(
      input(
        {
          schedule: ['px-CODE', 'px-LEFT'],
          rsvp: ['px-CODE/talk', 'email:Ann@x.org/talk', 'px-LEFT/panel'],
          contact: ['px-CODE/user:8', 'px-CODE/exhibitor:3'],
        },
        {
          schedule: ['#7'],
          rsvp: ['#7/talk', 'email:ann@X.org/talk-old'],
          contact: ['px-26/user:px-OTHER', 'px-26/exhibitor:4'],
        },
      ),
    );
    expect(planned(mirror.deletes)).toEqual([
      'retire schedule px-CODE',
      'delete schedule px-LEFT',
      'retire rsvp px-CODE/talk',
      'retire rsvp email:Ann@x.org/talk',
      'delete rsvp px-LEFT/panel',
      'retire contact px-CODE/user:8',
      'delete contact px-CODE/exhibitor:3',
    ]);
  });

  it('counts a key a failed row keeps as live; a part without a platform id is compared with nothing', async () => {
    const mirror = await planMirrorDeletes({
      ...input({ speaker: ['talk/px-CODE', 'talk/px-GONE'] }, { speaker: ['talk/px-NEW'] }),
      rowResults: [
        {
          kind: 'speaker',
          key: '@schedule:4',
          action: 'failed',
          origin: null,
          errorCode: 'EVSYNC_INVALID_ROW',
          message: 'invalid',
          keptKeys: [{ kind: 'speaker', key: 'talk/px-26' }],
        },
      ],
    });
    // `px-GONE` and `px-NEW` have no platform id: not the same user as far as anyone knows.
    expect(planned(mirror.deletes)).toEqual(['retire speaker talk/px-CODE', 'delete speaker talk/px-GONE']);
  });

  it('without the live keys (an older caller) deletes as before', async () => {
    const { liveLinks: _none, ...without } = input(
      { speaker: ['talk/px-CODE'] },
      { speaker: ['talk/px-26'] },
    );
    const mirror = await planMirrorDeletes(without);
    expect(planned(mirror.deletes)).toEqual(['delete speaker talk/px-CODE']);
  });
});

// An attendee who is also a speaker: the attendees job keys her `eb-1`, the speakers job
// `sz-1`, both user 7 in the id map. The attendees job dropping `eb-1` must not take user 7
// out of the conference while the speakers job still syncs her.
describe('planMirrorDeletes: a user another job syncs under its own key', () => {
  const ids = new Map<IntentKind, ReadonlyMap<string, number>>([
    [
      'user',
      new Map([
        ['eb-1', 7],
        ['sz-1', 7],
        ['eb-2', 8],
        ['eb-3', 9],
        ['eb-4', 9],
      ]),
    ],
  ]);
  const planned = (deletes: Awaited<ReturnType<typeof planMirrorDeletes>>['deletes']) =>
    deletes.map((item) => `${item.plannedAction} ${item.kind} ${item.key}`);

  it('retires the key, and still deletes records only this job’s gone keys name', async () => {
    const mirror = await planMirrorDeletes({
      seen: new Map([['user', new Set<string>(['eb-5'])]]),
      // `sz-1` is another job's: not among this job's keys.
      knownKeys: () => Promise.resolve(['eb-1', 'eb-2', 'eb-3', 'eb-4', 'eb-5']),
      ids,
      threshold: { percent: 100 },
      force: false,
    });
    expect(planned(mirror.deletes)).toEqual([
      'retire user eb-1',
      'delete user eb-2',
      // Two gone keys of this job for one record (a re-keyed person): both go.
      'delete user eb-3',
      'delete user eb-4',
    ]);
    expect(mirror.counts).toEqual([{ kind: 'user', deletes: 3, known: 5, allowed: 5 }]);
  });
});
