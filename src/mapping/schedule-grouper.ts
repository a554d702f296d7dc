import { CODE } from '../errors/codes.js';
import type { FlatParams } from '../model/params.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import { keyPart, linkKey } from '../model/link-key.js';
import type { DraftProblem, IntentDraft } from './loaded-mapping.js';
import type { DuplicateItem, GroupedItem, MappedItem } from './mapped-item.js';
import { checkDraft, columnOf, locateProblem } from './validate-draft.js';

interface UserSchedule {
  origin: RowOrigin;
  userParam: string;
  user: string;
  events: string[];
  /** Where each event came from, for the message of a repeated pair. */
  eventRows: number[];
  columns: Record<string, string>;
}

/** A user's invalid rows: the first few, to name in the message, and how many in all. */
interface HeldBack {
  rows: RowOrigin[];
  count: number;
}

/** How many invalid rows a held-back schedule's message names; the rest are counted. */
const NAMED_ROWS = 3;

/**
 * Schedules come one row per (user, event); the platform replaces a user's whole schedule
 * at once, so rows are gathered per user and each user becomes ONE schedule intent after
 * the source's last row (rows need not be sorted). Memory grows with the schedule source,
 * which is why only schedule mappings group.
 *
 * A user with an invalid row gets no schedule at all: `PUT /event/schedule` replaces the
 * whole schedule, so sending the valid rows alone would remove the event the bad row meant
 * (or, with no valid row, empty the schedule). An operator who fixes the row and runs again
 * gets the full schedule; one who never sees a partial send loses nothing meanwhile.
 * A row the source could not read (a ragged row, a broken quote) names no user it can be
 * tied to, so it holds back every schedule of the source, as it holds back mirror deletes.
 */
export class ScheduleGrouper {
  private readonly users = new Map<string, UserSchedule>();
  private readonly heldBack = new Map<string, HeldBack>();
  private readonly unreadable: HeldBack = { rows: [], count: 0 };

  constructor(private readonly vendor: string) {}

  /**
   * The problem of a schedule row that names no event. The request allows that (it empties
   * the schedule), but a row is one (user, event) pair: without its event it is a mistake,
   * not a wish to clear the schedule.
   */
  eventProblem(draft: IntentDraft): DraftProblem | undefined {
    for (const name in draft.params) if (name.startsWith('event_client_ids[')) return undefined;
    // A failed transform has already said why the event is missing.
    if (draft.failedParams?.some((name) => name.startsWith('event_client_ids[')) === true) return undefined;
    return {
      field: columnOf(draft, 'event_client_ids[0]'),
      param: 'event_client_ids[0]',
      message:
        "the event's client_id is required, but it is missing: each row of a schedule names one event of the user",
      code: CODE.REQUIRED,
    };
  }

  /** Folds one valid schedule draft (a user and one or more events) into its user's schedule. */
  add(draft: IntentDraft, origin: RowOrigin): GroupedItem | DuplicateItem {
    const { userParam, user, key } = userOf(draft);
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
          key: linkKey(key, keyPart(value)),
          firstRow: schedule.eventRows[seen] ?? 0,
          field: schedule.columns.event_client_ids ?? 'event_client_id',
          policy: 'first',
          intents: [],
          message: `${describeOrigin(origin)}: event ${value} is already in the schedule of ${user} (row ${schedule.eventRows[seen]}); the row is ignored`,
        };
      }
      schedule.events.push(value);
      schedule.eventRows.push(origin.row);
    }
    return { type: 'grouped', origin, kind: 'schedule', key };
  }

  /**
   * Notes the schedule drafts of an invalid row: their users' schedules are held back (see
   * the class comment). A draft whose user cannot be read names nobody to hold back.
   */
  holdBack(drafts: readonly IntentDraft[], origin: RowOrigin): void {
    for (const draft of drafts) {
      if (draft.kind !== 'schedule') continue;
      const { key } = userOf(draft);
      if (key === '' || key === '#') continue;
      let held = this.heldBack.get(key);
      if (held === undefined) {
        held = { rows: [], count: 0 };
        this.heldBack.set(key, held);
      }
      // A row with two bad drafts of one user is one row.
      if (held.rows.at(-1)?.row === origin.row) continue;
      if (held.rows.length < NAMED_ROWS) held.rows.push(origin);
      held.count++;
    }
  }

  /** Notes a row the source could not read: it may belong to any user (see the class comment). */
  holdBackEvery(origin: RowOrigin): void {
    if (this.unreadable.rows.length < NAMED_ROWS) this.unreadable.rows.push(origin);
    this.unreadable.count++;
  }

  /** One item per user, in the order users first appeared. */
  *flush(): Iterable<MappedItem> {
    for (const [key, schedule] of this.users) {
      // Never an empty replace: a user gets here only through a row with an event.
      if (schedule.events.length === 0) continue;
      const groupedRows = schedule.events.length;
      const held = this.heldBack.get(key);
      if (held !== undefined || this.unreadable.count > 0) {
        yield heldBackItem(schedule, key, held ?? this.unreadable, held !== undefined, groupedRows);
        continue;
      }
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
    this.heldBack.clear();
    this.unreadable.rows = [];
    this.unreadable.count = 0;
  }
}

/** The user a schedule draft is for, and its key (a key part, `#` before a platform id, as intentKey does). */
function userOf(draft: IntentDraft): { userParam: string; user: string; key: string } {
  const userParam = draft.params['user[client_id]'] !== undefined ? 'user[client_id]' : 'user[id]';
  const user = draft.params[userParam] ?? '';
  return { userParam, user, key: userParam === 'user[id]' ? `#${user}` : keyPart(user) };
}

/** `own`: the user's own rows are invalid; otherwise rows the source could not read may be its. */
function heldBackItem(
  schedule: UserSchedule,
  key: string,
  held: HeldBack,
  own: boolean,
  groupedRows: number,
): MappedItem {
  const named = held.rows.map(describeOrigin).join(', ');
  const one = held.count === 1;
  const more = held.count > held.rows.length ? ', …' : '';
  const invalid = own
    ? one
      ? `its ${named} is invalid`
      : `${held.count} of its rows are invalid (${named}${more})`
    : one
      ? `the source's ${named} could not be read and may be one of its rows`
      : `${held.count} rows of the source could not be read (${named}${more}) and may be its`;
  const others = own
    ? groupedRows === 1
      ? 'the other row'
      : `the other ${groupedRows} rows`
    : groupedRows === 1
      ? 'its one readable row'
      : `its ${groupedRows} readable rows`;
  const field = schedule.columns[schedule.userParam] ?? schedule.userParam;
  return {
    type: 'invalid',
    origin: schedule.origin,
    problems: [
      {
        field,
        param: schedule.userParam,
        message:
          `${describeOrigin(schedule.origin)}, ${field}: the schedule of ${schedule.user} is not sent, because ${invalid}: ` +
          `a schedule replaces the user's whole schedule, and sending ${others} alone would drop ` +
          `${one ? "that row's event; fix the row" : 'their events; fix them'} and run again`,
        code: CODE.MAPPING_SCHEDULE_HELD_BACK,
      },
    ],
    groupedRows,
    // The user's schedule stays as it is: mirror mode must not take it for gone.
    keys: [{ kind: 'schedule', key }],
  };
}
