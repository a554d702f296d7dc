import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import { erasureHash, erasureMarker } from '../../model/erasure.js';
import type { Intent } from '../../model/intent.js';
import type { FlatParams } from '../../model/params.js';
import { emailParam } from '../../platform/vendor.js';
import { EVENT_INDEXED_GROUPS, EVENT_SPEAKERS } from '../../platform/write-params/event-params.js';
import type { RowResult } from '../plan/sync-plan.js';

/** A row as the collection yields it (`CollectedRow`): its intents, or its results. */
interface Row {
  intents: Intent[];
  rowResults: RowResult[];
}

const SUPPRESSED =
  'suppressed: this row names a person erased in this conference (evsync forget); it is not sent and nothing of it is kept';

const REUSED =
  'not sent: this row’s client_id is the key of a person erased in this conference (evsync forget), and the row gives another e-mail: ' +
  'another person under a reused key, or the erased person with a new address? Nothing of the row is kept but its place. ' +
  'If it is another person, give them a client_id of their own in the source; if it is the erased person, remove the row';

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
      const verdict = this.verdict(intent);
      if (verdict === 'send') {
        const kept = intent.kind === 'event' ? this.withoutErasedSpeakers(intent) : intent;
        if (kept !== intent) intents ??= row.intents.slice(0, index);
        intents?.push(kept);
        continue;
      }
      intents ??= row.intents.slice(0, index);
      (results ??= [...row.rowResults]).push(
        verdict === 'reused'
          ? this.reusedKey(intent)
          : this.suppressed(intent.kind, intent.key, intent.origin),
      );
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

  /**
   * What becomes of an intent: sent, suppressed (it names an erased person), or, for a user
   * row under an erased person's client_id that gives an e-mail the erasure does not hold,
   * `reused`: another person under a reused key (a pretix `<order>-<place>`, a ticket handed
   * on), or the erased person with a new address. Suppressed, another person would be left
   * out every night in silence; sent, the erased person could come back. That row fails
   * instead, keeping nothing of it but its place.
   */
  private verdict(intent: Intent): 'send' | 'suppress' | 'reused' {
    if (intent.kind === 'user') {
      const email = intent.params[emailParam(this.vendor)];
      const emailErased = this.holds('email', email);
      const keyErased =
        this.holds('client_id', intent.key) ||
        (intent.aliases ?? []).some((alias) => this.holds('client_id', alias));
      if (!emailErased && !keyErased) return 'send';
      if (!emailErased && email !== undefined && email !== '') return 'reused';
      this.suppressedUsers.add(intent.key);
      return 'suppress';
    }
    // An event is sent, without the erased among its own speakers (`withoutErasedSpeakers`).
    if (intent.kind === 'event') return 'send';
    if (intent.kind === 'rsvp' && this.holds('email', intent.params['user[email]'])) return 'suppress';
    const names = intent.dependsOn.some(
      (parent) =>
        parent.kind === 'user' &&
        (this.suppressedUsers.has(parent.clientId) || this.holds('client_id', parent.clientId)),
    );
    return names ? 'suppress' : 'send';
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

  /**
   * The event without the speakers it lists itself (`event[speakers_attributes][n]`) who are
   * erased people, the others numbered again in their order, and no longer waiting for them;
   * the same intent when it lists none. The event is the organiser's, and is sent: kept
   * whole, it would bring the person back as its speaker, or wait for a user never sent.
   */
  private withoutErasedSpeakers(intent: Intent): Intent {
    const erased = (clientId: string | undefined): boolean =>
      clientId !== undefined && (this.suppressedUsers.has(clientId) || this.holds('client_id', clientId));
    // Each speaker's fields by its index (a number: other names are left as they are).
    const speakers = new Map<string, FlatParams>();
    const params: FlatParams = { ...intent.params };
    const named = EVENT_INDEXED_GROUPS.sort(Object.keys(params)).get(EVENT_SPEAKERS) ?? [];
    for (const { name, index, field } of named) {
      if (field === undefined || field === '' || !/^\d+$/.test(index)) continue;
      speakers.set(index, { ...speakers.get(index), [field]: params[name]! });
      delete params[name];
    }
    const kept = [...speakers.entries()]
      .sort(([a], [b]) => Number(a) - Number(b))
      .map(([, fields]) => fields)
      .filter((fields) => !erased(fields.user_client_id));
    if (kept.length === speakers.size) return intent;
    for (const [index, fields] of kept.entries())
      for (const [field, value] of Object.entries(fields))
        params[`${EVENT_SPEAKERS}[${index}][${field}]`] = value;
    const left = speakers.size - kept.length;
    return {
      ...intent,
      params,
      dependsOn: intent.dependsOn.filter((parent) => parent.kind !== 'user' || !erased(parent.clientId)),
      warnings: [
        ...(intent.warnings ?? []),
        `${left} of its speakers ${left === 1 ? 'was' : 'were'} left out: erased in this conference (evsync forget)`,
      ],
    };
  }

  private holds(kind: 'email' | 'client_id', value: string | undefined): boolean {
    if (value === undefined || value === '') return false;
    const hash = erasureHash(this.key!, { kind, value });
    return hash !== undefined && this.hashes.has(hash);
  }

  private reusedKey(intent: Intent): RowResult {
    return {
      kind: intent.kind,
      key: erasureMarker(this.key!, intent.kind, intent.key),
      action: 'failed',
      origin: intent.origin,
      errorCode: CODE.EVSYNC_ERASED_KEY_REUSED,
      message: REUSED,
    };
  }

  private suppressed(kind: RowResult['kind'], key: string, origin: RowResult['origin']): RowResult {
    return erasedResult(kind, erasureMarker(this.key!, kind, key), origin);
  }
}

/**
 * The result of a row, or of a pending intent, that names an erased person, under its marker
 * (`marker`): skipped, never sent, nothing of it kept (docs/privacy.md).
 */
export function erasedResult(
  kind: RowResult['kind'],
  marker: string,
  origin: RowResult['origin'],
): RowResult {
  return { kind, key: marker, action: 'skipped', origin, errorCode: CODE.EVSYNC_ERASED, message: SUPPRESSED };
}
