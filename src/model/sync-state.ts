import type { IntentKind } from './intent.js';

/** What the ledger remembers between runs: the platform id and the last-synced hash of each key. */
export interface PlatformIdEntry {
  kind: IntentKind;
  clientId: string;
  platformId: number;
}

export interface HashEntry {
  kind: IntentKind;
  key: string;
  hash: string;
  runId: string;
}
