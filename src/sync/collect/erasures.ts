import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import { erasureHash, erasureMarker } from '../../model/erasure.js';
import type { Intent } from '../../model/intent.js';
import { emailParam } from '../../platform/vendor.js';
import type { RowResult } from '../plan/sync-plan.js';

/** A row as the collection yields it (`CollectedRow`): its intents, or its results. */
interface Row {
  intents: Intent[];
  rowResults: RowResult[];
}

const SUPPRESSED =
  'suppressed: this row names a person erased in this conference (evsync forget); it is not sent and nothing of it is kept';

/**
 * The tombstones of a conference as a run reads its sources (docs/privacy.md, "Later runs"):
 * a user row whose e-mail or client_id an erasure holds, and every link naming such a user,
 * becomes a `skipped` result under a marker (`EVSYNC_ERASED`), with no params and no
 * message that quotes the row. Whatever the step, the format or a merge made of the row.
 */
export class Erasures {
  /** Users of this run suppressed by their e-mail alone: their links go too. */
  private readonly suppressedUsers = new Set<string>();

  private constructor(
    private readonly key: Buffer | undefined,
    private readonly hashes: ReadonlySet<string>,
    private readonly vendor: string,
  ) {}

  /** No tombstone: every row passes, at no cost. */
  static none(vendor = 'svc'): Erasures {
    return new Erasures(undefined, new Set(), vendor);
  }

  /** The tombstones of the ledger's conference (the ledger as a whole: those of no conference). */
  static async load(ledger: Pick<Ledger, 'erasure' | 'conference'>, vendor: string): Promise<Erasures> {
    const erasure = ledger.erasure();
    const hashes = await erasure.activeHashes(ledger.conference?.id ?? 0);
    if (hashes.size === 0) return Erasures.none(vendor);
    return new Erasures(await erasure.key(), hashes, vendor);
  }

  get active(): boolean {
    return this.key !== undefined;
  }

  /** The row, its intents that name an erased person turned into suppressed results. */
  filter(row: Row): Row {
    if (this.key === undefined) return row;
    let intents: Intent[] | undefined;
    let results: RowResult[] | undefined;
    for (const [index, intent] of row.intents.entries()) {
      if (!this.names(intent)) {
        intents?.push(intent);
        continue;
      }
      intents ??= row.intents.slice(0, index);
      (results ??= [...row.rowResults]).push(this.suppressed(intent.kind, intent.key, intent.origin));
    }
    const rowResults = (results ?? row.rowResults).map((result) =>
      this.namesResult(result) ? this.suppressed(result.kind, result.key, result.origin) : result,
    );
    return { intents: intents ?? row.intents, rowResults };
  }

  /** Whether a platform user of these client_ids is an erased person (the audit's `erased`). */
  namesClientIds(clientIds: readonly string[]): boolean {
    return this.key !== undefined && clientIds.some((clientId) => this.holds('client_id', clientId));
  }

  private names(intent: Intent): boolean {
    if (intent.kind === 'user') {
      const erased =
        this.holds('email', intent.params[emailParam(this.vendor)]) ||
        this.holds('client_id', intent.key) ||
        (intent.aliases ?? []).some((alias) => this.holds('client_id', alias));
      if (erased) this.suppressedUsers.add(intent.key);
      return erased;
    }
    // An event's speakers are the event's own: it is sent (docs/privacy.md, "What is not").
    if (intent.kind === 'event') return false;
    if (intent.kind === 'rsvp' && this.holds('email', intent.params['user[email]'])) return true;
    return intent.dependsOn.some(
      (parent) =>
        parent.kind === 'user' &&
        (this.suppressedUsers.has(parent.clientId) || this.holds('client_id', parent.clientId)),
    );
  }

  /** A failed or skipped user row of an erased person keeps nothing of them either. */
  private namesResult(result: RowResult): boolean {
    if (result.errorCode === CODE.EVSYNC_ERASED) return false;
    if (result.kind === 'user')
      return (
        this.holds('client_id', result.key) ||
        this.holds('email', result.params?.[emailParam(this.vendor)]) ||
        this.suppressedUsers.has(result.key)
      );
    return false;
  }

  private holds(kind: 'email' | 'client_id', value: string | undefined): boolean {
    if (value === undefined || value === '') return false;
    const hash = erasureHash(this.key!, { kind, value });
    return hash !== undefined && this.hashes.has(hash);
  }

  private suppressed(kind: RowResult['kind'], key: string, origin: RowResult['origin']): RowResult {
    return {
      kind,
      key: erasureMarker(this.key!, kind, key),
      action: 'skipped',
      origin,
      errorCode: CODE.EVSYNC_ERASED,
      message: SUPPRESSED,
    };
  }
}
