import type { DraftProblem, IntentDraft, LoadedMapping, RowMapper } from '../loaded-mapping.js';
import type { MappingFile } from '../mapping-file-schema.js';
import { aliasesOf, ColumnBinder, normalizeColumnName } from './column-binder.js';
import { compileIntent } from './compile-intent.js';
import { OccurrenceCounter } from './occurrence-counter.js';
import { LookupDefaults } from './lookup-defaults.js';
import { compileTransforms, keepsEmpty, type CompileContext } from './compile-value.js';
import { composeText } from './compile-transform.js';
import { keepUnmappedColumns } from './unmapped-custom-data.js';
import { resolveParamName } from '../param-aliases.js';
import type { IntentKind } from '../../model/intent.js';

export interface MappingIdentity {
  name: string;
  file: string;
  vendor: string;
}

/**
 * A parsed, rule-checked mapping file → a {@link LoadedMapping}. Binding to a header
 * compiles every value, condition and transform into closures once, so the per-row work
 * is property reads and string operations.
 */
export function compileMappingFile(
  file: MappingFile,
  identity: MappingIdentity,
  options: { unmappedToCustomData?: boolean } = {},
): LoadedMapping {
  const columns = referencedColumns(file);
  const kinds = [...new Set(file.intents.map((intent) => intent.kind))];
  const unique = [
    ...new Set(
      file.unique.flatMap((written) =>
        kinds.map((kind: IntentKind) => resolveParamName(kind, written, identity.vendor)),
      ),
    ),
  ];
  return {
    ...identity,
    description: file.description,
    kinds,
    onDuplicate: file.on_duplicate,
    onSharedEmail: file.on_shared_email,
    unique,
    columns,
    ...(file.detect ? { detect: file.detect.map(aliasesOf) } : {}),
    bind(header): RowMapper {
      const binder = new ColumnBinder(header);
      const context: CompileContext & { lookupDefaults: LookupDefaults; occurrences: OccurrenceCounter } = {
        binder,
        preprocess: compileTransforms(file.preprocess, binder),
        preprocessKeepsEmpty: keepsEmpty(file.preprocess),
        preprocessText: composeText(file.preprocess),
        occurrences: new OccurrenceCounter(binder),
        lookupDefaults: new LookupDefaults(),
      };
      const keeping = options.unmappedToCustomData
        ? keepUnmappedColumns(file.intents, unmappedColumns(header, columns), binder, identity.vendor, {
            notCopied: file.not_custom_data,
          })
        : undefined;
      const specs = keeping?.intents ?? file.intents;
      const intents = specs.map((intent) => compileIntent(intent, context, identity.vendor));
      const occurrences = context.occurrences;
      // Every column is resolved by now: what the header lacks, said once per header.
      const absences = binder.absences();
      const absent = absences.size > 0 ? absences : undefined;
      const mapRow: RowMapper = (values) => {
        occurrences.count(values);
        const drafts: IntentDraft[] = [];
        const problems: DraftProblem[] = [];
        // The reason worth reporting is that of the intent that came closest: a speaker row
        // skipped for its missing e-mail, not for not being a session.
        let reasons: string[] = [];
        let closestKinds = new Set<IntentKind>();
        let incomplete = false;
        let closest = -1;
        let keys: Array<{ kind: IntentKind; key: string }> = [];
        for (let index = 0; index < intents.length; index++) {
          const outcome = intents[index]!(values);
          if (outcome.type === 'skip') {
            if (outcome.passed > closest) {
              closest = outcome.passed;
              reasons = [];
              closestKinds = new Set();
              incomplete = false;
              keys = [];
            }
            if (outcome.passed === closest) {
              reasons.push(outcome.reason);
              closestKinds.add(file.intents[index]!.kind);
              incomplete ||= outcome.incomplete;
              if (outcome.key !== undefined) keys.push({ kind: file.intents[index]!.kind, key: outcome.key });
            }
          } else {
            if (absent !== undefined) outcome.draft.absentColumns = absent;
            drafts.push(outcome.draft);
            for (const problem of outcome.problems) problems.push(problem);
          }
        }
        if (drafts.length === 0 && problems.length === 0) {
          const [kind] = closestKinds;
          return {
            type: 'skip',
            reason: [...new Set(reasons)].join('; '),
            ...(closestKinds.size === 1 && kind !== undefined ? { kind } : {}),
            ...(incomplete ? { incomplete } : keys.length > 0 ? { keys } : {}),
          };
        }
        return { type: 'drafts', drafts, problems };
      };
      mapRow.notes = () => [
        ...context.lookupDefaults.notes(),
        ...(context.customDataOverrides ?? []).flatMap((overrides) => overrides.notes()),
      ];
      if (keeping !== undefined) mapRow.customData = keeping.report;
      return mapRow;
    },
  };
}

/** Every column the file reads, with its aliases (templates' placeholders included). */
function referencedColumns(file: MappingFile): string[][] {
  const found = new Map<string, string[]>();
  const add = (aliases: readonly string[]): void => {
    found.set(aliases.join('\u0000'), [...aliases]);
  };
  // A bare string in a value position is a column name.
  const visitValue = (value: unknown): void => {
    if (typeof value === 'string') add([value]);
    else if (Array.isArray(value) && value.every((item) => typeof item === 'string')) add(value);
    else visit(value);
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        if (
          (key === 'column' || key === 'timezone_column') &&
          (typeof child === 'string' || Array.isArray(child))
        ) {
          add(aliasesOf(child as string | string[]));
        } else if (key === 'first_of' && Array.isArray(child)) {
          child.forEach(visitValue);
        } else if (key === 'json' && child !== null && typeof child === 'object') {
          Object.values(child as Record<string, unknown>).forEach(visitValue);
        } else if (key === 'template' && typeof child === 'string') {
          for (const match of child.matchAll(/\{([^{}]+)\}/g))
            add(
              (match[1] ?? '')
                .trim()
                .replace(/^#/, '')
                .split('|')
                .map((a) => a.trim()),
            );
        } else {
          visit(child);
        }
      }
    }
  };
  for (const intent of file.intents) {
    Object.values(intent.params).forEach(visitValue);
    for (const block of [...(intent.addresses ?? []), ...(intent.phones ?? [])])
      Object.values(block).forEach(visitValue);
    if (intent.key !== undefined) visitValue(intent.key);
    if (intent.op !== undefined && intent.op !== 'upsert' && intent.op !== 'remove') visitValue(intent.op);
    visit(intent.when);
  }
  return [...found.values()];
}

/** The header's columns that the mapping does not read, in the header's order. */
export function unmappedColumns(
  header: readonly string[],
  columns: readonly (readonly string[])[],
): string[] {
  const read = new Set(columns.flat().map(normalizeColumnName));
  return header.filter((name) => name.trim() !== '' && !read.has(normalizeColumnName(name)));
}
