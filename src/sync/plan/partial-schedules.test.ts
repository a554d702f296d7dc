import { describe, expect, it } from 'vitest';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { withoutMissingPicks } from '../phases/schedule-picks.js';
import { unchangedPartialSchedule } from './partial-schedules.js';

const schedule: PlannedIntent = {
  kind: 'schedule',
  key: 'att-1',
  op: 'upsert',
  plannedAction: 'update',
  params: { user_client_id: 'att-1', 'event_client_ids[0]': 's1', 'event_client_ids[1]': 's2' },
  origin: null,
  dependsOn: [
    { kind: 'user', clientId: 'att-1' },
    { kind: 'event', clientId: 's1' },
    { kind: 'event', clientId: 's2' },
  ],
  hash: 'whole',
};
const sentWithoutS2 = withoutMissingPicks(
  schedule,
  [
    {
      parent: { kind: 'event', clientId: 's2' },
      why: 'unknown',
      reason: '',
      message: '',
      code: 'EVSYNC_PARENT_MISSING',
    },
  ],
  () => false,
)!.item.hash;

describe('a schedule sent without some events', () => {
  it('is unchanged while the same events are missing, planned as what was sent', () => {
    const same = unchangedPartialSchedule(schedule, sentWithoutS2, (dep) => dep.clientId !== 's2');
    expect(same).toMatchObject({ plannedAction: 'unchanged', hash: sentWithoutS2 });
    expect(same!.params).toEqual({ user_client_id: 'att-1', 'event_client_ids[0]': 's1' });
  });

  it('goes whole once a missing event is there, and is never kept back for a missing user', () => {
    expect(unchangedPartialSchedule(schedule, sentWithoutS2, () => true)).toBeUndefined();
    expect(
      unchangedPartialSchedule(
        schedule,
        sentWithoutS2,
        (dep) => dep.kind === 'event' && dep.clientId === 's1',
      ),
    ).toBeUndefined();
    expect(unchangedPartialSchedule(schedule, 'another', (dep) => dep.clientId !== 's2')).toBeUndefined();
  });
});
