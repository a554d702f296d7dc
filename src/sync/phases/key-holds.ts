import type { Ledger } from '../../ledger/ledger.js';
import type { ConferenceRecord } from '../../model/conference.js';
import type { KeyHold, LedgerHolds } from '../../ledger/ledger-holds.js';
import { CODE } from '../../errors/codes.js';
import { dependencyKey, type IntentDependency, type IntentKind } from '../../model/intent.js';

/** Where a run's holds are kept, and the run and job a new hold names. */
export interface HoldsOfRun {
  store: Pick<LedgerHolds, 'hold' | 'release' | 'list'>;
  runId: string;
  jobName: string;
}

/**
 * The keys held back from dependents in one run (docs/sync-engine.md, "Who is who"): read
 * when the run starts and again before each chunk it sends (another job of the conference
 * may refuse a key meanwhile), kept as the run refuses or syncs their users. A user refused
 * as now another person is held in the ledger for every job of the conference; a user that
 * syncs, or is deleted, is let go. Nothing is written for a key that was not held.
 */
export class KeyHolds {
  private held: Map<string, KeyHold>;
  /** Keys this run let go: a read of the ledger that crossed the release does not hold them again. */
  private readonly releasedHere = new Set<string>();

  constructor(
    holds: readonly KeyHold[] = [],
    /** Without it (a plan preview) holds are read, never written. */
    private readonly run?: HoldsOfRun,
    /**
     * Keys a plan preview counts as sent: a user in the run's own rows may sync this time,
     * so only its dependents in other jobs are told they will be held.
     */
    private readonly except?: (dep: IntentDependency) => boolean,
  ) {
    this.held = new Map(holds.map((hold) => [dependencyKey(hold), hold]));
  }

  /** The conference's holds, for a run that records its own. */
  static async load(store: LedgerHolds, run?: Omit<HoldsOfRun, 'store'>): Promise<KeyHolds> {
    return new KeyHolds(await store.list(), run && { store, ...run });
  }

  /**
   * Reads the conference's holds again: one statement, before each chunk a run sends. The
   * holds this run made stay, and those it let go stay let go.
   */
  async refresh(): Promise<void> {
    if (this.run === undefined) return;
    const { runId } = this.run;
    const next = new Map<string, KeyHold>();
    for (const hold of await this.run.store.list()) {
      const key = dependencyKey(hold);
      if (!this.releasedHere.has(key)) next.set(key, hold);
    }
    for (const [key, hold] of this.held) if (hold.runId === runId) next.set(key, hold);
    this.held = next;
  }

  /** Whether any key is held: a run with none writes nothing and asks nothing per intent. */
  get any(): boolean {
    return this.held.size > 0;
  }

  of(dep: IntentDependency): KeyHold | undefined {
    if (!this.any || this.except?.(dep) === true) return undefined;
    return this.held.get(dependencyKey(dep));
  }

  /** Holds a key whose user this run refused as now another person. */
  async hold(dep: IntentDependency, errorCode: string): Promise<void> {
    if (this.run === undefined) return;
    const hold: KeyHold = {
      kind: dep.kind,
      clientId: dep.clientId,
      runId: this.run.runId,
      jobName: this.run.jobName,
      errorCode,
      heldAt: new Date(),
    };
    await this.run.store.hold([hold]);
    this.held.set(dependencyKey(hold), hold);
  }

  /** Lets go the keys of a user that synced (or was deleted) in this run. */
  async release(deps: readonly IntentDependency[]): Promise<void> {
    if (this.held.size === 0) return;
    const gone = deps.filter((dep) => {
      const key = dependencyKey(dep);
      if (!this.held.delete(key)) return false;
      this.releasedHere.add(key);
      return true;
    });
    if (gone.length === 0 || this.run === undefined) return;
    for (const kind of new Set(gone.map((dep) => dep.kind)))
      await this.run.store.release(
        kind,
        gone.filter((dep) => dep.kind === kind).map((dep) => dep.clientId),
      );
  }
}

/** Every conference's holds, each with its conference: a handful at most, one statement per conference. */
export async function everyHold(
  ledger: Pick<Ledger, 'listConferences' | 'forConference'>,
): Promise<Array<{ conference: ConferenceRecord; hold: KeyHold }>> {
  const found: Array<{ conference: ConferenceRecord; hold: KeyHold }> = [];
  for (const conference of await ledger.listConferences())
    for (const hold of await ledger.forConference(conference).holds().list())
      found.push({ conference, hold });
  return found;
}

/** The holds of a run's conference, kept as the run goes (the ledger is the conference's). */
export async function runHolds(ledger: Pick<Ledger, 'holds' | 'getRun'>, runId: string): Promise<KeyHolds> {
  const jobName = (await ledger.getRun(runId))?.jobName ?? '';
  return KeyHolds.load(ledger.holds(), { runId, jobName });
}

/**
 * Refusals of a merge that put a key's person in question as the processor's do: one
 * client_id given to two people, or keys of one merged account given to two e-mails. Their
 * rows never reach the platform, but another job's speaker link or schedule names the key,
 * and would land on the account's earlier person (docs/sync-engine.md, "Who is who").
 */
const HOLDING_ROW_CODES: ReadonlySet<string> = new Set([
  CODE.EVSYNC_ONE_KEY_TWO_PEOPLE,
  CODE.EVSYNC_MERGED_PERSON_SPLIT,
]);

/** The user keys a failed row holds from every job's dependents (`HOLDING_ROW_CODES`). */
export function keysHeldBy(row: {
  action: string;
  errorCode: string;
  keptKeys?: ReadonlyArray<{ kind: IntentKind; key: string }>;
}): IntentDependency[] {
  if (row.action !== 'failed' || !HOLDING_ROW_CODES.has(row.errorCode)) return [];
  return (row.keptKeys ?? []).flatMap((kept) =>
    kept.kind === 'user' ? [{ kind: 'user' as const, clientId: kept.key }] : [],
  );
}
