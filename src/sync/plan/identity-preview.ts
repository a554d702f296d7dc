import type { Ledger } from '../../ledger/ledger.js';
import type { FlatParams } from '../../model/params.js';
import { anotherPerson } from '../../model/person.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { personOfParams } from '../processors/account-owner.js';
import { lastSentToAccounts, removedOrDeletedLastSent } from '../processors/processor.js';

/** How many refused keys a plan names per kind of refusal; the rest are counted. */
const NAMED = 5;

/** The refused keys of one rule: counted, the first ones named. */
class Refusals {
  readonly named: string[] = [];
  count = 0;

  add(line: string): void {
    this.count += 1;
    if (this.named.length < NAMED) this.named.push(line);
  }

  lines(head: (count: number) => string): string[] {
    if (this.count === 0) return [];
    const more = this.count - this.named.length;
    return [head(this.count), ...this.named, ...(more > 0 ? [`  … and ${more} more`] : [])];
  }
}

/**
 * The user intents a run would refuse as another person under the same key, found ahead
 * from what the ledger last sent for each key (docs/sync-engine.md, "Who is who"): updates
 * whose key now names another person (`refuseKeyOfAnother`, with their merged aliases), and
 * creates, or updates with nothing synced to their key's account, under a key whose earlier
 * person a run removed from the conference (`refuseKeyOfRemovedPerson`). `evsync plan` and `run --dry-run` name them and exit 1, as the
 * run would, instead of promising an update or a create.
 */
export class IdentityPreview {
  private readonly updates = new Refusals();
  private readonly creates = new Refusals();

  constructor(
    private readonly ledger: Pick<
      Ledger,
      | 'syncedParams'
      | 'accountsLastSent'
      | 'removedKeysLastSent'
      | 'deletedAccountsLastSent'
      | 'platformIdsOf'
    >,
    private readonly vendor: string,
  ) {}

  /** Refused so far, both rules. */
  get count(): number {
    return this.updates.count + this.creates.count;
  }

  /** Checks a chunk's user updates and creates: one ledger read for each. */
  async note(work: readonly PlannedIntent[]): Promise<void> {
    const users = (action: PlannedIntent['plannedAction']): PlannedIntent[] =>
      work.filter((item) => item.kind === 'user' && item.plannedAction === action);
    const updates = users('update');
    /** Keys of updates with an id and nothing synced to their account: checked as the run does. */
    const unsynced: Array<{ item: PlannedIntent; key: string }> = [];
    if (updates.length > 0) {
      const keys = updates.flatMap((item) => [item.key, ...(item.aliases ?? [])]);
      const last = await lastSentToAccounts(this.ledger, keys);
      // As the run checks them (`refuseKeyOfAnother`): a key of an account checked already is not.
      const merged = updates.some((item) => item.aliases !== undefined);
      const ids = merged ? await this.ledger.platformIdsOf('user', keys) : new Map<string, number>();
      for (const item of updates) {
        for (const key of [item.key, ...(item.aliases ?? [])])
          if (!last.has(key) && (key === item.key || ids.has(key))) unsynced.push({ item, key });
        const checked = new Set<number>();
        for (const key of [item.key, ...(item.aliases ?? [])]) {
          const id = ids.get(key);
          if (id !== undefined && checked.has(id)) continue;
          const sent = last.get(key);
          if (sent === undefined) continue;
          if (id !== undefined) checked.add(id);
          const line = this.another(item, sent, `user "${key}": `, 'when last synced');
          if (line === undefined) continue;
          this.updates.add(line);
          break;
        }
      }
    }
    // As the run checks them (`refuseKeyOfRemovedPerson`): each create's key, then the keys
    // the run checks for their account's delete, the updates' with nothing synced and a
    // merged create's other keys.
    const creates = users('create');
    const ofCreates =
      creates.length === 0
        ? new Map<string, FlatParams>()
        : await this.ledger.removedKeysLastSent(
            'user',
            creates.map((item) => item.key),
          );
    const others = [
      ...unsynced,
      ...creates.flatMap((item) => (item.aliases ?? []).map((key) => ({ item, key }))),
    ];
    const ofOthers =
      others.length === 0
        ? new Map<string, FlatParams>()
        : await removedOrDeletedLastSent(
            this.ledger,
            others.map((other) => other.key),
          );
    const checks = [
      ...creates.map((item) => ({ item, key: item.key, sent: ofCreates })),
      ...others.map((other) => ({ ...other, sent: ofOthers })),
    ];
    const refused = new Set<PlannedIntent>();
    for (const { item, key, sent } of checks) {
      if (refused.has(item)) continue;
      const merged = key === item.key ? '' : ` (merged into "${item.key}")`;
      const line = this.another(
        item,
        sent.get(key),
        `user "${key}"${merged}: `,
        'when last synced, removed from this conference since',
      );
      if (line === undefined) continue;
      this.creates.add(line);
      refused.add(item);
    }
  }

  /** The line naming both people when the row is another person than `sent`, else undefined. */
  private another(
    item: PlannedIntent,
    sent: FlatParams | undefined,
    prefix: string,
    when: string,
  ): string | undefined {
    if (sent === undefined) return undefined;
    const was = personOfParams(sent, this.vendor);
    const now = personOfParams(item.params, this.vendor);
    if (!anotherPerson(was, now)) return undefined;
    return `  ${prefix}"${was.name}" <${was.email}> ${when}, "${now.name}" <${now.email}> in the source`;
  }

  /** The lines for the plan's "Who is who": none when no user would be refused. */
  lines(): string[] {
    return [
      ...this.updates.lines(
        (count) =>
          `${count} user update${count === 1 ? '' : 's'} a run refuses: the key now names another person ` +
          '(EVSYNC_KEY_NOW_ANOTHER_PERSON), and nothing is written to that account. Give the new person a client_id of their own:',
      ),
      ...this.creates.lines(
        (count) =>
          `${count} user row${count === 1 ? '' : 's'} a run refuses: the key's earlier person, removed from this conference, keeps it on the platform ` +
          '(EVSYNC_KEY_OF_REMOVED_PERSON), and sending would put them back. Give the new person a client_id of their own:',
      ),
    ];
  }
}
