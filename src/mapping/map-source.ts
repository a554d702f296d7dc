import type { Source, SourceItem } from '../sources/source-row.js';
import { describeOrigin } from '../model/row-origin.js';
import { normalizeColumnName } from './compile/column-binder.js';
import type { LoadedMapping, RowMapper } from './loaded-mapping.js';
import type {
  HeaderReport,
  MappedItem,
  MappingProblem,
  MapSourceOptions,
  UnmappedCustomData,
} from './mapped-item.js';
import { RowState } from './row-state.js';
import { withSingleLineParams } from './single-line.js';

/**
 * Streams a source through a mapping: one item per source row (skipped, invalid,
 * duplicate, grouped, or its validated intents), then, for schedule mappings, one item
 * per user's schedule. Memory stays bounded: only keys are remembered (as hashes), except
 * that schedules are gathered per user until the end.
 *
 * Written as an iterator rather than an async generator: mapping a row is synchronous, and
 * a generator's yield cost a further promise and queue step per row on top of the source's
 * (about half a microsecond, a twentieth of the row). Like every iterator here it is meant
 * for `for await`: one `next()` at a time. Leaving early closes the source.
 */
export function mapSource(
  source: Source,
  mapping: LoadedMapping,
  options: MapSourceOptions = {},
): AsyncIterableIterator<MappedItem> {
  const state = new RowState(mapping, options.syncedHash);
  // Schedule sources mix record types, each with its own columns, in one stream: one
  // binding per `record_type`. Other sources have one header, and this is one lookup.
  const mappers = new Map<string, RowMapper>();
  const mapRow = (item: SourceItem): MappedItem => {
    if (!item.ok) {
      state.schedules?.holdBackEvery(item.origin);
      const problem: MappingProblem = {
        field: '',
        message: `${describeOrigin(item.origin)}: ${item.message}`,
        code: item.code,
      };
      return {
        type: 'invalid',
        origin: item.origin,
        problems: [problem],
        ...(item.kind ? { kind: item.kind } : {}),
      };
    }
    const recordType = item.values.record_type;
    const headerKey = typeof recordType === 'string' ? recordType : '';
    let mapper = mappers.get(headerKey);
    if (mapper === undefined) {
      const header = Object.keys(item.values);
      mapper = mapping.bind(header);
      mappers.set(headerKey, mapper);
      const report = headerReport(mapping, header);
      options.onHeader?.(
        mapper.customData === undefined ? report : { ...report, customData: mapper.customData },
      );
    }
    const mapped = mapper(item.values, item.origin);
    return state.process(
      item.lineBreaks ? withSingleLineParams(mapped) : mapped,
      item.origin,
      item.uncarried,
      item.filledFrom,
    );
  };

  let rows: AsyncIterator<SourceItem> | undefined;
  /** Set once the source is read: the schedules gathered, then nothing. */
  let rest: Iterator<MappedItem> | undefined;
  let noted = false;
  const finished = (): IteratorResult<MappedItem> => {
    if (!noted)
      options.onNotes?.([
        ...state.notes(),
        ...[...mappers.values()].flatMap((mapper) => mapper.notes?.() ?? []),
      ]);
    noted = true;
    rest = NOTHING_MORE;
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<MappedItem> = {
    [Symbol.asyncIterator]: () => iterator,
    async next(): Promise<IteratorResult<MappedItem>> {
      if (rest === undefined) {
        rows ??= source.rows()[Symbol.asyncIterator]();
        const next = await rows.next();
        if (next.done !== true) {
          try {
            return { value: mapRow(next.value), done: false };
          } catch (error) {
            // `for await` does not close an iterator whose next() failed: close the source here.
            await iterator.return?.();
            throw error;
          }
        }
        rest = state.schedules === undefined ? NOTHING_MORE : state.schedules.flush()[Symbol.iterator]();
      }
      const next = rest.next();
      return next.done === true ? finished() : { value: next.value, done: false };
    },
    async return(): Promise<IteratorResult<MappedItem>> {
      const open = rest === undefined ? rows : undefined;
      finished();
      await open?.return?.();
      return { value: undefined, done: true };
    },
  };
  return iterator;
}

/** With several record types, a column is missing only when no record type has it. */
export function mergeHeaderReports(headers: readonly HeaderReport[]): HeaderReport | undefined {
  const [first, ...rest] = headers;
  if (first === undefined) return undefined;
  const key = (aliases: readonly string[]): string => aliases.join('\u0000');
  let missing = first.missing;
  let unused = first.unused;
  let customData = first.customData;
  for (const header of rest) {
    const stillMissing = new Set(header.missing.map(key));
    missing = missing.filter((aliases) => stillMissing.has(key(aliases)));
    unused = [...new Set([...unused, ...header.unused])];
    customData = mergeUnmappedCustomData(customData, header.customData);
  }
  return customData === undefined ? { missing, unused } : { missing, unused, customData };
}

/** A column is kept when one record type keeps it; the object merged into is the first named. */
function mergeUnmappedCustomData(
  a: UnmappedCustomData | undefined,
  b: UnmappedCustomData | undefined,
): UnmappedCustomData | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const kept = [...new Set([...a.kept, ...b.kept])];
  const leftOut = [...a.leftOut, ...b.leftOut].filter(
    (entry, index, all) =>
      !kept.includes(entry.column) && all.findIndex((other) => other.column === entry.column) === index,
  );
  const mergedInto = a.mergedInto ?? b.mergedInto;
  return mergedInto === undefined ? { kept, leftOut } : { kept, leftOut, mergedInto };
}

const NOTHING_MORE: Iterator<MappedItem> = { next: () => ({ value: undefined, done: true }) };

function headerReport(
  mapping: LoadedMapping,
  header: readonly string[],
): { missing: string[][]; unused: string[] } {
  const normal = normalizeColumnName;
  const present = new Set(header.map(normal));
  const used = new Set<string>();
  const missing: string[][] = [];
  for (const aliases of mapping.columns) {
    const found = aliases.find((alias) => present.has(normal(alias)));
    if (found === undefined) missing.push([...aliases]);
    for (const alias of aliases) used.add(normal(alias));
  }
  const unused = mapping.columns.length === 0 ? [] : header.filter((name) => !used.has(normal(name)));
  return { missing, unused };
}
