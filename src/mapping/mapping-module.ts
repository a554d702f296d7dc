import { pathToFileURL } from 'node:url';
import { basename, extname } from 'node:path';
import { CODE } from '../errors/codes.js';
import { messageOf } from '../errors/evsync-error.js';
import type { FlatParams } from '../model/params.js';
import type { RawRecord } from '../sources/source-row.js';
import type { RowOrigin } from '../model/row-origin.js';
import { INTENT_KINDS, type IntentKind } from '../model/intent.js';
import type { DraftProblem, IntentDraft, LoadedMapping, RowMapping } from './loaded-mapping.js';
import type { OnDuplicate, OnSharedEmail } from './mapped-item.js';
import { MappingError } from './mapping-error.js';
import { ModuleParamNames } from './module-param-names.js';
import { resolveParamName } from './param-aliases.js';

/**
 * The escape hatch for what YAML cannot say: a TypeScript (or JavaScript) module that
 * exports `mapping`. Its intents go through the same param names (short names expand,
 * unknown names are the row's problem), keys, duplicate checks and write-param validation
 * as a YAML mapping's. Under the compiled CLI, point at the compiled `.js`.
 *
 * @example
 * export const mapping: MappingModule = {
 *   kinds: ['user'],
 *   mapRow: (row) => [{ kind: 'user', params: { client_id: String(row.id), … } }],
 * };
 */
export interface MappingModule {
  description?: string;
  kinds: readonly IntentKind[];
  /** @defaultValue `'error'` */
  onDuplicate?: OnDuplicate;
  /** See `on_shared_email` in a mapping file. @defaultValue 'error' */
  onSharedEmail?: OnSharedEmail;
  /** Params whose values must not repeat across rows: short names (`email`) or full ones. */
  unique?: readonly string[];
  mapRow(row: RawRecord, context: MappingModuleContext): MappingModuleResult;
}

export interface MappingModuleContext {
  origin: RowOrigin;
  vendor: string;
}

export interface ModuleIntent {
  kind: IntentKind;
  /** @defaultValue `'upsert'` */
  op?: 'upsert' | 'remove';
  params: FlatParams;
  key?: string;
  /** Param → source column, so messages name the column. */
  columns?: Record<string, string>;
}

/** Intents, a reason to skip the row, or problems (messages without the origin). */
export type MappingModuleResult = ModuleIntent[] | { skip: string } | { problems: DraftProblem[] };

export async function loadMappingModule(file: string, vendor: string): Promise<LoadedMapping> {
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(file).href)) as { mapping?: unknown }).mapping;
  } catch (error) {
    throw new MappingError(`Cannot load the mapping module ${file}: ${String(error)}`, { cause: error });
  }
  const module = exported as Partial<MappingModule> | undefined;
  if (typeof module?.mapRow !== 'function' || !Array.isArray(module.kinds)) {
    throw new MappingError(
      `The mapping module ${file} must export \`mapping\` with \`kinds\` and a \`mapRow(row, context)\` function`,
    );
  }
  const unknownKind = (module.kinds as readonly unknown[]).find(
    (kind) => typeof kind !== 'string' || !(INTENT_KINDS as readonly string[]).includes(kind),
  );
  if (unknownKind !== undefined) {
    throw new MappingError(
      `The mapping module ${file} names an unknown intent kind ${JSON.stringify(unknownKind)}`,
    );
  }
  const mapRow = module.mapRow.bind(module);
  const kinds = module.kinds as readonly IntentKind[];
  const name = basename(file, extname(file));
  const paramNames = new ModuleParamNames(vendor, basename(file));
  /** A module's mistake on one row is that row's problem: the other rows go on. */
  const failed = (message: string): RowMapping => ({
    type: 'drafts',
    drafts: [],
    problems: [
      {
        field: '',
        message: `the mapping module ${basename(file)} ${message}`,
        code: CODE.MAPPING_MODULE_FAILED,
      },
    ],
  });
  return {
    name,
    file,
    vendor,
    description: module.description,
    kinds: module.kinds,
    onDuplicate: module.onDuplicate ?? 'error',
    onSharedEmail: module.onSharedEmail ?? 'error',
    // Short names expand as in a YAML mapping's `unique:`, to match the params they expand to.
    unique: [
      ...new Set(
        (module.unique ?? []).flatMap((written) =>
          kinds.map((kind) => resolveParamName(kind, written, vendor)),
        ),
      ),
    ],
    columns: [],
    bind: () => (values, origin) => {
      let result: unknown;
      try {
        result = mapRow(values, { origin, vendor });
      } catch (error) {
        return failed(`threw on this row: ${messageOf(error)}; fix its mapRow`);
      }
      if (!Array.isArray(result)) {
        const shape = result as Partial<{ skip: unknown; problems: unknown }> | null | undefined;
        if (typeof shape?.skip === 'string') return { type: 'skip', reason: shape.skip };
        if (Array.isArray(shape?.problems))
          return { type: 'drafts', drafts: [], problems: [...(shape.problems as DraftProblem[])] };
        return failed(
          `returned ${describeValue(result)} for this row: mapRow must return a list of intents, { skip: reason } or { problems: [...] }`,
        );
      }
      const malformed = (result as unknown[]).findIndex((intent) => {
        const { kind, params } = (intent ?? {}) as Partial<Record<keyof ModuleIntent, unknown>>;
        return (
          !(kinds as readonly unknown[]).includes(kind) ||
          params === null ||
          typeof params !== 'object' ||
          Array.isArray(params)
        );
      });
      if (malformed !== -1) {
        return failed(
          `returned an intent at index ${malformed} (${describeValue(result[malformed])}) for this row without a kind it declares (${kinds.join(', ')}) or without params as an object`,
        );
      }
      const problems: DraftProblem[] = [];
      const drafts: IntentDraft[] = (result as ModuleIntent[]).map((intent) =>
        paramNames.resolve(
          {
            kind: intent.kind,
            op: intent.op ?? 'upsert',
            params: intent.params,
            ...(intent.key === undefined ? {} : { key: intent.key }),
            ...(intent.columns === undefined ? {} : { columns: intent.columns }),
          },
          problems,
        ),
      );
      return { type: 'drafts', drafts, problems };
    },
  };
}

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  let json: string;
  try {
    json = JSON.stringify(value) ?? typeof value;
  } catch {
    // A BigInt or a circular value: the message must not fail in its turn.
    json = typeof value;
  }
  return json.length > 60 ? `${json.slice(0, 57)}…` : json;
}
