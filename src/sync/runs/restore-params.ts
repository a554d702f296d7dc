import { CODE } from '../../errors/codes.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { PlannedIntent, PlannedIntentRecord } from '../../model/planned-intent.js';
import type { RunRecord } from '../../model/run-record.js';
import { messageOf } from '../../errors/evsync-error.js';
import type { Intent } from '../../model/intent.js';
import { loadJobFile, type LoadedJob } from '../job-file.js';
import { redactParams } from '../../log/redaction.js';
import { fingerprintOf, HASH_KEY_PURPOSE, hashIntent, keyFingerprint } from '../plan/params-hash.js';
import type { RowResult } from '../plan/sync-plan.js';
import { collectIntents, type CollectedIntents } from '../collect/collect-intents.js';
import type { EngineDeps } from '../execute/engine-deps.js';

export const SECRET_NOT_RESTORED = CODE.EVSYNC_SECRET_NOT_RESTORED;

export interface RestoredIntents {
  /** Each record that can be sent, as it can be sent. */
  items: Map<PlannedIntentRecord, PlannedIntent>;
  /** Records that cannot: a secret param could not be read again as the run planned it. */
  unsendable: RowResult[];
}

/** The job's source as read again for a run: its intents by kind and key, or why it could not be. */
export type SourceReadAgain = { intents: Map<string, Intent> } | { problem: string };

export type RestoreDeps = Pick<EngineDeps, 'platform' | 'logger'> & {
  ledger: Pick<Ledger, 'getRun'>;
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
      // The fields the plan clears (empty params, plan/cleared-fields.ts) are not the source's.
      items.set(record, { ...plannedOf(record), params: { ...clearedOf(record.params), ...fresh.params } });
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
function asPlanned(fresh: Intent, record: PlannedIntentRecord, hashKey: Uint8Array | undefined): boolean {
  if (hashIntent(fresh.op, fresh.params, hashKey, fresh.aliases) === record.hash) return true;
  const plannedUnder = fingerprintOf(record.hash);
  if (hashKey === undefined || plannedUnder === undefined || plannedUnder === keyFingerprint(hashKey))
    return false;
  if (fresh.op !== record.op) return false;
  const now = redactParams(fresh.params);
  const then = record.params;
  const names = Object.keys(now);
  return names.length === Object.keys(then).length && names.every((name) => now[name] === then[name]);
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

function clearedOf(params: PlannedIntent['params']): PlannedIntent['params'] {
  const cleared: PlannedIntent['params'] = {};
  for (const [name, value] of Object.entries(params)) if (value === '') cleared[name] = '';
  return cleared;
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

/** Every intent of the run's job, by kind and key; a retry reads the job of the run it retries. */
async function readSourceAgain(deps: RestoreDeps, run: RunRecord): Promise<SourceReadAgain> {
  const read = await readJobAgain(deps, run, 'for its secret params');
  if ('problem' in read) return read;
  return { intents: new Map(read.collected.intents.map((intent) => [intentId(intent), intent])) };
}

/**
 * The run's job read again from its sources as they are now (a retry reads the job of the
 * run it retries), or why it could not be: for `why`, as the warning logs it.
 */
export async function readJobAgain(
  deps: Pick<RestoreDeps, 'ledger' | 'platform' | 'logger'>,
  run: RunRecord,
  why: string,
): Promise<{ job: LoadedJob; collected: CollectedIntents } | { problem: string }> {
  const file = await jobFileOf(deps.ledger, run);
  if (file === undefined) return { problem: 'the run does not name its job file' };
  try {
    const job = loadJobFile(file);
    const collected = await collectIntents(job, {
      vendor: deps.platform.vendor,
      ...(deps.logger ? { logger: deps.logger } : {}),
    });
    return { job, collected };
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
