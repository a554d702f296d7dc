import { CODE } from '../../errors/codes.js';
import { sharedAccountsOf } from './one-account.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { RunRecord } from '../../model/run-record.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { Intent } from '../../model/intent.js';
import { loadJobFile, type LoadedJob } from '../job-file.js';
import { createHash } from 'node:crypto';
import { isSecretName, redactParams } from '../../log/redaction.js';
import { fingerprintOf, HASH_KEY_PURPOSE, hashIntent, keyFingerprint } from '../plan/params-hash.js';
import type { RowResult } from '../plan/sync-plan.js';
import { streamCollected, type CollectedRow } from '../collect/collect-intents.js';
import { Erasures } from '../collect/erasures.js';
import { ownCopy } from '../processors/id-cache.js';
import type { EngineDeps } from '../execute/engine-deps.js';

export const SECRET_NOT_RESTORED = CODE.EVSYNC_SECRET_NOT_RESTORED;

export interface RestoredIntents {
  /** Each record that can be sent, as it can be sent. */
  items: Map<PlannedIntentRecord, PlannedIntent>;
  /** Records that cannot: a secret param could not be read again as the run planned it. */
  unsendable: RowResult[];
}

/**
 * What a resume needs of a row with a secret param, read again from the job's source: its
 * secrets, and enough to tell whether the row is still the one the run planned (its hash,
 * and a digest of its params without secrets). About 150 bytes a row, not the row.
 */
export interface SecretRow {
  op: Intent['op'];
  hash: string;
  redactedDigest: string;
  secrets: Record<string, string>;
}

/** The job's source as read again for a run: its rows with a secret by kind and key, or why it could not be. */
export type SourceReadAgain = { intents: Map<string, SecretRow> } | { problem: string };

export type RestoreDeps = Pick<EngineDeps, 'platform' | 'logger'> & {
  ledger: Pick<Ledger, 'getRun' | 'erasure' | 'conference' | 'keysSharingIds'>;
  /**
   * Sources already read again, by run id: a distributed worker restores one intent at a
   * time and reads each run's source once.
   */
  sourcesRead?: Map<string, Promise<SourceReadAgain>>;
};

/**
 * Planned intents read back from the ledger, for `resume` and `retry`. Secret params (a
 * password) were stored redacted, so they are read again from the job's source: an
 * intent goes with the source's params when its row there still hashes as the run
 * planned it. Otherwise it is not sent. Sent without its password, a create would make a
 * user who never gets one (updates leave passwords out, spec §4.2), and its hash would
 * record the row as synced. The next run of the job sends the row as the source has it.
 */
export async function restoreIntents(
  deps: RestoreDeps,
  run: RunRecord,
  records: readonly PlannedIntentRecord[],
): Promise<RestoredIntents> {
  const items = new Map<PlannedIntentRecord, PlannedIntent>();
  const secret = records.filter((record) => record.redactedParams.length > 0);
  for (const record of records) if (record.redactedParams.length === 0) items.set(record, plannedOf(record));
  if (secret.length === 0) return { items, unsendable: [] };

  const source = await readOnce(deps, run);
  const hashKey = deps.platform.deriveKey?.(HASH_KEY_PURPOSE);
  const unsendable: RowResult[] = [];
  for (const record of secret) {
    const fresh = 'intents' in source ? source.intents.get(intentId(record)) : undefined;
    if (fresh !== undefined && asPlanned(fresh, record, hashKey)) {
      // The row is as planned, so its params are the record's (with the fields the plan
      // clears, plan/cleared-fields.ts) and the source's secrets.
      items.set(record, { ...plannedOf(record), params: { ...record.params, ...fresh.secrets } });
      continue;
    }
    const why =
      'intents' in source
        ? fresh === undefined
          ? 'the job’s source no longer has this row'
          : 'the row has changed in the job’s source since'
        : source.problem;
    unsendable.push({
      kind: record.kind,
      key: record.key,
      action: 'failed',
      origin: record.origin,
      errorCode: SECRET_NOT_RESTORED,
      message:
        `Not sent: its ${record.redactedParams.join(', ')} is never stored, so it is read again from the job's source, ` +
        `and ${why}. Run the job again to send the row as the source has it now.`,
      params: record.params,
    });
  }
  return { items, unsendable };
}

/**
 * Whether the source's row is still the one the run planned. By its hash; but a plan made
 * under another signing key (a run that failed with a wrong key, resumed with the right
 * one) keyed its hash differently: then the row is compared without its secrets, as the
 * ledger stored it, and its secret is taken as the source has it now.
 */
function asPlanned(fresh: SecretRow, record: PlannedIntentRecord, hashKey: Uint8Array | undefined): boolean {
  if (fresh.hash === record.hash) return true;
  const plannedUnder = fingerprintOf(record.hash);
  if (hashKey === undefined || plannedUnder === undefined || plannedUnder === keyFingerprint(hashKey))
    return false;
  return fresh.op === record.op && fresh.redactedDigest === paramsDigest(record.params);
}

/** A digest of params as the ledger stores them (secrets redacted), by name. */
function paramsDigest(params: Readonly<Record<string, string>>): string {
  const entries = Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash('sha256').update(JSON.stringify(entries)).digest('base64');
}

/** The part of a source's row a resume needs, when it has a secret param (see {@link SecretRow}). */
function secretRowOf(intent: Intent, hashKey: Uint8Array | undefined): SecretRow | undefined {
  let secrets: Record<string, string> | undefined;
  for (const name in intent.params)
    if (isSecretName(name)) (secrets ??= {})[ownCopy(name)] = ownCopy(intent.params[name] ?? '');
  if (secrets === undefined) return undefined;
  return {
    op: intent.op,
    hash: hashIntent(intent.op, intent.params, hashKey, intent.aliases),
    redactedDigest: paramsDigest(redactParams(intent.params)),
    secrets,
  };
}

function plannedOf(record: PlannedIntentRecord): PlannedIntent {
  return {
    kind: record.kind,
    key: record.key,
    op: record.op,
    plannedAction: record.plannedAction,
    params: record.params,
    origin: record.origin,
    dependsOn: record.dependsOn,
    ...(record.aliases ? { aliases: record.aliases } : {}),
    hash: record.hash,
  };
}

/** An intent's `(kind, key)` as one map key. */
export function intentId(intent: Pick<Intent, 'kind' | 'key'>): string {
  return `${intent.kind}\u0000${intent.key}`;
}

function readOnce(deps: RestoreDeps, run: RunRecord): Promise<SourceReadAgain> {
  if (deps.sourcesRead === undefined) return readSourceAgain(deps, run);
  let read = deps.sourcesRead.get(run.id);
  if (read === undefined) deps.sourcesRead.set(run.id, (read = readSourceAgain(deps, run)));
  return read;
}

/** The rows of the run's job that have a secret, by kind and key; a retry reads the job of the run it retries. */
async function readSourceAgain(deps: RestoreDeps, run: RunRecord): Promise<SourceReadAgain> {
  const hashKey = deps.platform.deriveKey?.(HASH_KEY_PURPOSE);
  const intents = new Map<string, SecretRow>();
  const read = await readJobAgain(deps, run, 'for its secret params', (row) => {
    for (const intent of row.intents) {
      const secret = secretRowOf(intent, hashKey);
      // A later step's row of a key takes the earlier one's place, as in a run (a user's
      // repeat never comes: `UsersApart`).
      if (secret !== undefined) intents.set(ownCopy(intentId(intent)), secret);
    }
  });
  return 'problem' in read ? read : { intents };
}

/**
 * The run's job read again from its sources as they are now (a retry reads the job of the
 * run it retries), row by row: `visit` keeps what it needs of each, so that memory does not
 * grow with the source (docs/sync-engine.md, "Memory"). Or why it could not be read: for
 * `why`, as the warning logs it.
 */
export async function readJobAgain(
  deps: Pick<RestoreDeps, 'ledger' | 'platform' | 'logger'>,
  run: RunRecord,
  why: string,
  visit: (row: CollectedRow) => void,
): Promise<{ job: LoadedJob } | { problem: string }> {
  const file = await jobFileOf(deps.ledger, run);
  if (file === undefined) return { problem: 'the run does not name its job file' };
  try {
    const job = loadJobFile(file);
    const erasures = await Erasures.load(deps.ledger, deps.platform.vendor);
    for await (const row of streamCollected(job, {
      vendor: deps.platform.vendor,
      erasures,
      sharedAccounts: sharedAccountsOf(deps.ledger, deps.platform),
      ...(deps.logger ? { logger: deps.logger } : {}),
    }))
      visit(row);
    return { job };
  } catch (error) {
    deps.logger?.warn({ err: error, runId: run.id, file }, `could not read the job again ${why}`);
    return { problem: `the job could not be read again (${messageOf(error)})` };
  }
}

/** Retries chain back to the run made from a job file (bounded: a chain never loops). */
export async function jobFileOf(ledger: RestoreDeps['ledger'], run: RunRecord): Promise<string | undefined> {
  let current: RunRecord | undefined = run;
  for (let hops = 0; current !== undefined && hops < 100; hops += 1) {
    if (typeof current.options.file === 'string') return current.options.file;
    const base: unknown = current.options.retryOf;
    current = typeof base === 'string' ? await ledger.getRun(base) : undefined;
  }
  return undefined;
}
