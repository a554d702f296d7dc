import type { FlatParams } from '../platform/params.js';
import type { RowOrigin } from '../sources/source-row.js';
import type { IntentDraft } from './loaded-mapping.js';
import type { DuplicateItem, GroupedItem, MappedItem } from './mapped-item.js';
import { checkDraft, locateProblem } from './validate-draft.js';

interface UserSchedule {
  origin: RowOrigin;
  userParam: string;
  user: string;
  events: string[];
  /** Where each event came from, for the message of a repeated pair. */
  eventRows: number[];
  columns: Record<string, string>;
}

/**
 * Schedules come one row per (user, event); the platform replaces a user's whole schedule
 * at once, so rows are gathered per user and each user becomes ONE schedule intent after
 * the source's last row (rows need not be sorted). Memory grows with the schedule source,
 * which is why only schedule mappings group.
 */
export class ScheduleGrouper {
  private readonly users = new Map<string, UserSchedule>();

  constructor(private readonly vendor: string) {}

  /** Folds one valid schedule draft (a user and one or more events) into its user's schedule. */
  add(draft: IntentDraft, origin: RowOrigin): GroupedItem | DuplicateItem {
    const userParam = draft.params['user[client_id]'] !== undefined ? 'user[client_id]' : 'user[id]';
    const user = draft.params[userParam] ?? '';
    const key = userParam === 'user[id]' ? `#${user}` : user;
    let schedule = this.users.get(key);
    if (schedule === undefined) {
      schedule = { origin, userParam, user, events: [], eventRows: [], columns: {} };
      this.users.set(key, schedule);
    }
    for (const [name, column] of Object.entries(draft.columns ?? {})) {
      schedule.columns[name.startsWith('event_client_ids[') ? 'event_client_ids' : name] = column;
    }
    for (const [name, value] of Object.entries(draft.params)) {
      if (!name.startsWith('event_client_ids[')) continue;
      const seen = schedule.events.indexOf(value);
      if (seen !== -1) {
        return {
          type: 'duplicate',
          origin,
          kind: 'schedule',
          key: `${key}/${value}`,
          firstRow: schedule.eventRows[seen] ?? 0,
          field: schedule.columns.event_client_ids ?? 'event_client_id',
          policy: 'first',
          intents: [],
          message: `event ${value} is already in the schedule of ${user} (row ${schedule.eventRows[seen]}); the row is ignored`,
        };
      }
      schedule.events.push(value);
      schedule.eventRows.push(origin.row);
    }
    return { type: 'grouped', origin, kind: 'schedule', key };
  }

  /** One item per user, in the order users first appeared. */
  *flush(): Iterable<MappedItem> {
    for (const schedule of this.users.values()) {
      const params: FlatParams = { [schedule.userParam]: schedule.user };
      const columns: Record<string, string> = {
        [schedule.userParam]: schedule.columns[schedule.userParam] ?? '',
      };
      schedule.events.forEach((event, index) => {
        params[`event_client_ids[${index}]`] = event;
        columns[`event_client_ids[${index}]`] = schedule.columns.event_client_ids ?? '';
      });
      const checked = checkDraft(
        { kind: 'schedule', op: 'upsert', params, columns },
        schedule.origin,
        this.vendor,
      );
      const groupedRows = schedule.events.length;
      yield checked.ok
        ? { type: 'intents', origin: schedule.origin, intents: [checked.intent], groupedRows }
        : {
            type: 'invalid',
            origin: schedule.origin,
            problems: checked.problems.map((problem) => locateProblem(schedule.origin, problem)),
            groupedRows,
          };
    }
    this.users.clear();
  }
}
