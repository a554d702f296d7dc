import type { Ledger } from '../../ledger/ledger.js';
import { anotherPerson } from '../../model/person.js';
import type { PlannedIntent } from '../../model/planned-intent.js';
import { personOfParams } from '../processors/account-owner.js';

/** How many refused keys a plan names; the rest are counted. */
const NAMED = 5;

/**
 * The user updates a run would refuse as now another person under the same key
 * (`refuseKeyOfAnother`, docs/sync-engine.md, "Who is who"), found ahead from what the
 * ledger last sent for each key and its merged aliases: `evsync plan` and `run --dry-run`
 * name them and exit 1, as the run would, instead of promising an update.
 */
export class IdentityPreview {
  private readonly named: string[] = [];
  /** Updates refused so far. */
  count = 0;

  constructor(
    private readonly ledger: Pick<Ledger, 'syncedParams'>,
    private readonly vendor: string,
  ) {}

  /** Checks a chunk's user updates: one ledger read for all of them. */
  async note(work: readonly PlannedIntent[]): Promise<void> {
    const updates = work.filter((item) => item.kind === 'user' && item.plannedAction === 'update');
    if (updates.length === 0) return;
    const last = await this.ledger.syncedParams(
      'user',
      updates.flatMap((item) => [item.key, ...(item.aliases ?? [])]),
    );
    for (const item of updates) {
      const now = personOfParams(item.params, this.vendor);
      for (const key of [item.key, ...(item.aliases ?? [])]) {
        const sent = last.get(key);
        if (sent === undefined) continue;
        const was = personOfParams(sent, this.vendor);
        if (!anotherPerson(was, now)) continue;
        this.count += 1;
        if (this.named.length < NAMED)
          this.named.push(
            `  user "${key}": "${was.name}" <${was.email}> when last synced, "${now.name}" <${now.email}> in the source`,
          );
        break;
      }
    }
  }

  /** The lines for the plan's "Who is who": none when no update would be refused. */
  lines(): string[] {
    if (this.count === 0) return [];
    const more = this.count - this.named.length;
    return [
      `${this.count} user update${this.count === 1 ? '' : 's'} a run refuses: the key now names another person ` +
        '(EVSYNC_KEY_NOW_ANOTHER_PERSON), and nothing is written to that account. Give the new person a client_id of their own:',
      ...this.named,
      ...(more > 0 ? [`  … and ${more} more`] : []),
    ];
  }
}
