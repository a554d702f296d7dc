import type { IntentKind } from '../model/intent.js';
import { redactParams, redactUrl } from '../log/redaction.js';
import { SUCCESS_ACTIONS, type IntentResultInput, type ResultAction } from '../model/result-records.js';

/** One result as a row of the bulk INSERT (snake_case keys of `jsonb_to_recordset`). */
export interface ResultRowInput {
  run_id: string;
  kind: IntentKind;
  key: string;
  action: ResultAction;
  origin_source: string | null;
  origin_row: number | null;
  origin_line: number | null;
  platform_id: number | null;
  http_status: number | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  duration_ms: number;
  params: Record<string, string>;
  worker: string | null;
}

/** A key of one conference's sync state. */
export interface KeyRef {
  conference_id: number;
  kind: IntentKind;
  key: string;
}

/** Everything one `recordResults` call writes, decided before the transaction starts. */
export interface ResultBatch {
  results: ResultRowInput[];
  hashUpserts: (KeyRef & { hash: string; run_id: string })[];
  hashRemovals: KeyRef[];
  idUpserts: (KeyRef & { platform_id: number })[];
  idRemovals: KeyRef[];
}

const SUCCESS = new Set<ResultAction>(SUCCESS_ACTIONS);

/**
 * Redacts, de-duplicates (the last result of a `(run, kind, key)` wins, as a single
 * `ON CONFLICT DO UPDATE` statement cannot touch a row twice) and derives the hash and
 * id-map side effects: set after a success, removed after a delete, untouched otherwise,
 * in the conference of each result's run (`conferenceOf`; 0 for state recorded without one).
 */
export function prepareResultBatch(
  inputs: readonly IntentResultInput[],
  conferenceOf: (runId: string) => number = () => 0,
): ResultBatch {
  const results = new Map<string, ResultRowInput>();
  const hashes = new Map<string, { ref: KeyRef; set?: { hash: string; runId: string } }>();
  const ids = new Map<string, { ref: KeyRef; platformId?: number }>();

  for (const input of inputs) {
    const ref: KeyRef = { conference_id: conferenceOf(input.runId), kind: input.kind, key: input.key };
    const refId = `${ref.conference_id}\u0000${input.kind}\u0000${input.key}`;
    results.set(`${input.runId}\u0000${input.kind}\u0000${input.key}`, toRow(input));
    if (SUCCESS.has(input.action)) {
      if (input.hash != null) hashes.set(refId, { ref, set: { hash: input.hash, runId: input.runId } });
      if (input.platformId != null) {
        ids.set(refId, { ref, platformId: input.platformId });
        for (const alias of input.aliases ?? []) {
          const aliasRef: KeyRef = { ...ref, key: alias };
          ids.set(`${ref.conference_id}\u0000${input.kind}\u0000${alias}`, {
            ref: aliasRef,
            platformId: input.platformId,
          });
        }
      }
    } else if (input.action === 'deleted' || input.action === 'retired') {
      hashes.set(refId, { ref });
      ids.set(refId, { ref });
    }
  }

  const batch: ResultBatch = {
    results: [...results.values()],
    hashUpserts: [],
    hashRemovals: [],
    idUpserts: [],
    idRemovals: [],
  };
  for (const { ref, set } of hashes.values()) {
    if (set) batch.hashUpserts.push({ ...ref, hash: set.hash, run_id: set.runId });
    else batch.hashRemovals.push(ref);
  }
  for (const { ref, platformId } of ids.values()) {
    if (platformId === undefined) batch.idRemovals.push(ref);
    else batch.idUpserts.push({ ...ref, platform_id: platformId });
  }
  return batch;
}

function toRow(input: IntentResultInput): ResultRowInput {
  return {
    run_id: input.runId,
    kind: input.kind,
    key: input.key,
    action: input.action,
    origin_source: input.origin?.source ?? null,
    origin_row: input.origin?.row ?? null,
    origin_line: input.origin?.line ?? null,
    platform_id: input.platformId ?? null,
    http_status: input.httpStatus ?? null,
    error_code: input.errorCode ?? null,
    error_message: input.errorMessage == null ? null : redactUrl(input.errorMessage),
    attempts: Math.max(0, Math.round(input.attempts ?? 1)),
    duration_ms: Math.max(0, Math.round(input.durationMs ?? 0)),
    params: redactParams(input.params ?? {}),
    worker: input.worker ?? null,
  };
}
