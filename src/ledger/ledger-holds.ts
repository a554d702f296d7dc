import type { IntentKind } from '../model/intent.js';

/**
 * A key held back from every job's dependents (docs/sync-engine.md, "Who is who"): a run
 * refused its user because the row now names another person than the one the key's platform
 * account is. Held until the key's user syncs again (or is deleted), or an operator lets go.
 */
export interface KeyHold {
  kind: IntentKind;
  clientId: string;
  /** The run that refused it, and its job: where the row is to be fixed. */
  runId: string;
  jobName: string;
  /** The refusal's code (`EVSYNC_KEY_NOW_ANOTHER_PERSON`). */
  errorCode: string;
  heldAt: Date;
}

/** The holds of the ledger's conference (`Ledger.forConference`). */
export interface LedgerHolds {
  /** Every hold of the conference: a handful at most, read once per run. */
  list(): Promise<KeyHold[]>;
  /** Holds these keys (a newer refusal replaces an older one's run). */
  hold(holds: ReadonlyArray<Omit<KeyHold, 'heldAt'>>): Promise<void>;
  /** Lets these keys go; the number of holds that were there. */
  release(kind: IntentKind, clientIds: readonly string[]): Promise<number>;
}
