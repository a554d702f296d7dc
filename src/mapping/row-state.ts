import { CODE } from '../errors/codes.js';
import { describeOrigin, type RowOrigin } from '../model/row-origin.js';
import { INTENT_KINDS, isParentKind, type Intent, type IntentKind } from '../model/intent.js';
import { KeyRegistry, prefixedKeyHash, prefixedLowerCaseHash, type KeyHash } from './key-registry.js';
import type { DraftProblem, IntentDraft, LoadedMapping, RowMapping } from './loaded-mapping.js';
import type { MappedItem, MappingProblem, SyncedHashOf } from './mapped-item.js';
import { ScheduleGrouper } from './schedule-grouper.js';
import { SharedEmails } from './shared-email.js';
import { SharedKeys } from './shared-key.js';
import { quote } from '../platform/write-params/text-rules.js';
import { checkDraft, locateProblem, readableKeys, syncedIntent, withValueSource } from './validate-draft.js';
import {
  concernsOptionalField,
  leftOutWarning,
  warnedIntents,
  withoutOptionalFields,
  withRowWarnings,
} from './optional-fields.js';
import { withUncarried } from './uncarried-columns.js';

/** What one run of a mapping remembers between rows: keys seen, and schedules being gathered. */
export class RowState {
  private readonly keys = new KeyRegistry();
  readonly schedules: ScheduleGrouper | undefined;
  /**
   * The `unique:` params, each with a short number that stands for it in front of the hashed
   * value (`0\u0000`). Unique values compare without case: `Bob@x.org` and `bob@x.org` are
   * one platform user.
   */
  private readonly unique: ReadonlyArray<{ param: string; prefix: string }>;
  /** Rows of one e-mail and different names (`on_shared_email`). */
  readonly shared: SharedEmails;
  /** Whether rows of one e-mail and different names are told apart (`on_shared_email`). */
  private readonly checksShared: boolean;
  /** User rows of one key and another person (shared-key.ts). */
  private readonly sharedKeys: SharedKeys;
  private readonly rowOf = (hash: KeyHash): number | undefined => this.keys.rowOf(hash);

  /**
   * Under `on_duplicate: last`, the keys of each row still in the result, by row number:
   * what a later row that repeats one of its keys or values replaces.
   */
  private readonly holders: Map<number, Array<{ kind: IntentKind; key: string }>> | undefined;

  constructor(
    private readonly mapping: LoadedMapping,
    /** A run's plan: rows synced as they are need no second check (`syncedIntent`). */
    private readonly syncedHash?: SyncedHashOf,
  ) {
    this.holders = mapping.onDuplicate === 'last' ? new Map() : undefined;
    this.unique = mapping.unique.map((param, index) => ({ param, prefix: `${index}\u0000` }));
    this.shared = new SharedEmails(mapping.vendor, mapping.onSharedEmail);
    // Under `on_duplicate: last` the mapping asks a later row to replace an earlier one that
    // shares its e-mail (a corrected name), and each replaced row says so.
    this.checksShared = mapping.onDuplicate !== 'last';
    this.sharedKeys = new SharedKeys(mapping.vendor);
    this.schedules = mapping.kinds.includes('schedule') ? new ScheduleGrouper(mapping.vendor) : undefined;
  }

  process(
    mapped: RowMapping,
    origin: RowOrigin,
    uncarried?: readonly string[],
    filledFrom?: Readonly<Record<string, string>>,
  ): MappedItem {
    if (mapped.type === 'skip') {
      const { type: _skip, ...skip } = mapped;
      return { type: 'skipped', origin, ...skip };
    }
    // A fresh array per row (the mapper builds it), so it may take this row's other problems.
    const problems: DraftProblem[] = mapped.problems;
    const intents: Intent[] = [];
    const columns: Array<Record<string, string> | undefined> = [];
    const schedules = [];
    // A row of problems already is checked whole, so that every problem of it is said.
    const syncedHash = problems.length === 0 ? this.syncedHash : undefined;
    /** Drafts found synced as they are, not checked (`syncedIntent`). */
    let unchecked: IntentDraft[] | undefined;
    for (const draft of mapped.drafts) {
      const synced =
        syncedHash === undefined || draft.kind === 'schedule'
          ? undefined
          : syncedIntent(draft, origin, syncedHash);
      if (synced !== undefined) {
        (unchecked ??= []).push(draft);
        intents.push(uncarried ? withUncarried(synced, draft.columns, uncarried) : synced);
        columns.push(draft.columns);
        continue;
      }
      const checked = checkDraft(draft, origin, this.mapping.vendor);
      if (draft.kind === 'schedule' && this.schedules !== undefined) {
        const noEvent = this.schedules.eventProblem(draft);
        if (noEvent !== undefined) problems.push(noEvent);
        if (checked.ok && noEvent === undefined) schedules.push(draft);
        else if (!checked.ok) problems.push(...checked.problems);
      } else if (!checked.ok) problems.push(...checked.problems);
      else {
        intents.push(uncarried ? withUncarried(checked.intent, draft.columns, uncarried) : checked.intent);
        columns.push(draft.columns);
      }
    }
    // Another draft of the row failed: the row is checked whole after all.
    if (problems.length > 0 && unchecked !== undefined)
      for (const draft of unchecked) {
        const checked = checkDraft(draft, origin, this.mapping.vendor);
        if (!checked.ok) problems.push(...checked.problems);
      }
    if (problems.length > 0 && this.schedules === undefined) {
      const rescued = withoutOptionalFields(mapped.drafts, problems, origin, this.mapping.vendor);
      if (rescued !== undefined) {
        // Sent without the optional fields it got wrong, each named in a warning.
        const warnings = dedupe(rescued.warnings).map((problem) =>
          leftOutWarning(origin, withValueSource(problem, filledFrom)),
        );
        const intents = warnedIntents(rescued.intents, warnings, mapped.drafts, uncarried);
        const columnsOf = mapped.drafts.map((draft) => draft.columns);
        return withRowWarnings(this.checkDuplicates(intents, columnsOf, origin), warnings);
      }
    }
    if (problems.length > 0) {
      // The user's other rows must not replace the schedule without this row's event.
      this.schedules?.holdBack(mapped.drafts, origin);
      // A schedule row has no optional field: each of its problems fails it.
      const rescuable = this.schedules === undefined;
      const located = dedupe(problems).map((p) => {
        const problem = locateProblem(origin, withValueSource(p, filledFrom));
        if (rescuable && concernsOptionalField(mapped.drafts, p)) problem.optionalField = true;
        return problem;
      });
      const keys = readableKeys(mapped.drafts, problems);
      const kinds = new Set(mapped.drafts.map((draft) => draft.kind));
      const [kind] = kinds;
      const params = mapped.drafts[0]?.params;
      return {
        type: 'invalid',
        origin,
        problems: located,
        ...(kinds.size === 1 && kind !== undefined ? { kind } : {}),
        ...(keys ? { keys } : {}),
        ...(params ? { params } : {}),
      };
    }
    if (schedules.length > 0 && intents.length === 0 && this.schedules !== undefined) {
      // A schedule row is one (user, event) pair; the grouper reports it.
      let last: MappedItem | undefined;
      for (const draft of schedules) last = this.schedules.add(draft, origin);
      if (last !== undefined) return last;
    }
    return this.checkDuplicates(intents, columns, origin);
  }

  /**
   * Every intent's key and unique values are hashed once: looked up, and stored when the
   * row is accepted. A row's keys are not stored when the row is rejected.
   */
  private checkDuplicates(
    intents: Intent[],
    columns: Array<Record<string, string> | undefined>,
    origin: RowOrigin,
  ): MappedItem {
    const policy = this.mapping.onDuplicate;
    const unique = this.unique;
    /** Keys and values of the intents nothing repeats: stored whatever the policy. */
    const owned: KeyHash[] = [];
    /** Those of repeated intents: stored, for this row, only when it replaces the earlier ones. */
    let repeated: KeyHash[] | undefined;
    /** The rows it repeats (allocated on the first repeat: most rows repeat nothing). */
    let earlierRows: number[] | undefined;
    const fresh: Intent[] = [];
    let duplicate: { intent: Intent; field: string; firstRow: number; what: string } | undefined;
    for (let index = 0; index < intents.length; index++) {
      const intent = intents[index]!;
      const keyHashed = prefixedKeyHash(KIND_PREFIX[intent.kind], intent.key);
      const firstRow = this.keys.rowOf(keyHashed);
      let found: { field: string; firstRow: number; what: string } | undefined;
      if (firstRow !== undefined) {
        const field = isParentKind(intent.kind) ? (columns[index]?.client_id ?? 'client_id') : 'key';
        if (intent.kind === 'user' && !this.sharedKeys.samePerson(firstRow, intent)) {
          return this.sharedKeys.refuse(intent, field, firstRow, origin);
        }
        (earlierRows ??= []).push(firstRow);
        found = { field, firstRow, what: `${intent.kind} ${field} ${quote(intent.key)}` };
      }
      const firstHash = owned.length;
      owned.push(keyHashed);
      for (let position = 0; position < unique.length; position++) {
        const { param, prefix } = unique[position]!;
        const value = intent.params[param];
        if (value === undefined) continue;
        const hash = prefixedLowerCaseHash(prefix, value);
        const seen = this.keys.rowOf(hash);
        // Who uses the e-mail, so that a later row of another name is told apart (shared-email.ts).
        if (param === this.shared.param && intent.kind === 'user' && this.checksShared) {
          if (
            seen !== undefined &&
            found === undefined &&
            !this.shared.samePerson(hash, intent, this.rowOf)
          ) {
            const handled = this.shared.handle(intent, value, seen, origin);
            if ('type' in handled) return handled;
            // A plus-address: the row is checked again as it now is.
            intents[index] = handled;
            return this.checkDuplicates(intents, columns, origin);
          }
          owned.push(this.shared.personHash(hash, intent));
          // Its row keeps the plain address; a holder whose account has it may come first later.
          if (this.shared.policy === 'suffix') intent.plusOnShare = true;
        }
        if (seen !== undefined) {
          (earlierRows ??= []).push(seen);
          if (found === undefined) {
            const field = columns[index]?.[param] ?? param;
            found = { field, firstRow: seen, what: `${field} ${quote(value)}` };
          }
        }
        owned.push(hash);
      }
      if (found === undefined) {
        fresh.push(intent);
      } else {
        (repeated ??= []).push(...owned.splice(firstHash));
        duplicate ??= { intent, ...found };
      }
    }
    if (duplicate === undefined) {
      this.store(owned, origin.row, intents);
      this.holders?.set(origin.row, keysOf(intents));
      return { type: 'intents', origin, intents };
    }
    const message = `${duplicate.what} was already used by row ${duplicate.firstRow}`;
    if (policy === 'error') {
      const problem: MappingProblem = {
        field: duplicate.field,
        message: `${describeOrigin(origin)}: ${message}; set on_duplicate: first or last in the mapping to let one row win`,
        code: CODE.MAPPING_DUPLICATE,
      };
      // Each key is readable: a repeated e-mail may belong to a user the ledger knows.
      const params = intents[0]?.params;
      return {
        type: 'invalid',
        origin,
        problems: [problem],
        keys: keysOf(intents),
        ...(params ? { params } : {}),
      };
    }
    this.store(owned, origin.row, intents);
    let replaces: Array<{ kind: IntentKind; key: string; row: number }> | undefined;
    if (policy === 'last' && this.holders !== undefined) {
      // This row takes over every key and value it repeats, so a later repeat replaces it;
      // the rows it repeats are gone as a whole, and their other keys are free again.
      this.store(repeated ?? [], origin.row, intents);
      replaces = [];
      for (const row of new Set(earlierRows)) {
        for (const held of this.holders.get(row) ?? []) replaces.push({ ...held, row });
        this.holders.delete(row);
      }
      this.holders.set(origin.row, keysOf(intents));
    }
    return {
      type: 'duplicate',
      origin,
      kind: duplicate.intent.kind,
      key: duplicate.intent.key,
      firstRow: duplicate.firstRow,
      field: duplicate.field,
      policy,
      intents: policy === 'first' ? fresh : intents,
      ...(replaces ? { replaces } : {}),
      message: `${describeOrigin(origin)}: ${message}; ${policy === 'first' ? 'the first row wins' : 'this row replaces it'}`,
    };
  }

  /** What a person should know once the source is read: the plus-addresses given. */
  notes(): string[] {
    const given = this.shared.suffixed;
    if (given.length === 0) return [];
    const more = given.length > 3 ? `, and ${given.length - 3} more` : '';
    return [
      `${given.length} user row(s) share an earlier row's e-mail under another name and were given a plus-address of it (on_shared_email: suffix): ${given.slice(0, 3).join('; ')}${more}`,
    ];
  }

  private store(hashes: readonly KeyHash[], row: number, intents: readonly Intent[]): void {
    for (const hash of hashes) this.keys.assign(hash, row);
    this.sharedKeys.record(row, intents);
  }
}

function keysOf(intents: readonly Intent[]): Array<{ kind: IntentKind; key: string }> {
  return intents.map((intent) => ({ kind: intent.kind, key: intent.key }));
}

/** What goes in front of a key in its hash: the kind, so that a user and an event may share a client_id. */
const KIND_PREFIX = Object.fromEntries(INTENT_KINDS.map((kind) => [kind, `${kind}\u0000`])) as Record<
  IntentKind,
  string
>;

function dedupe(problems: DraftProblem[]): DraftProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const id = `${p.param ?? p.field}\u0000${p.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
