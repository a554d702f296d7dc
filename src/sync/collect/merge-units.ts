import type { FlatParams } from '../../model/params.js';

/**
 * Params that are parts of one object of the platform (spec §4.2): a person's `employee`
 * (company and position), their addresses, phones and preferences. A merged person takes
 * each such object whole from one step: field by field, the company of one source and the
 * position of another made a job no source gives, and the city of one address and the
 * street of another an address nobody lives at (docs/sync-engine.md, "One person, many
 * sources").
 */
export interface MergeUnit {
  /** What a conflict line and `merge.users.fields` call it. */
  name: string;
  /** The part whose first filled value picks the step (the company), if one does. */
  anchor?: string;
  /** Whether `param` is one of its parts. */
  has(param: string): boolean;
  /** A part as a conflict line names it: `position`, `city`, `#2 city`. */
  label(param: string): string;
}

const COMPANY = 'user[employee_attributes][company_attributes][name]';
const POSITION = 'user[employee_attributes][position]';

/** A list of the platform's (`prefix[n][field]`): its entries are one unit, whatever their index. */
function list(name: string, prefix: string): MergeUnit {
  const part = new RegExp(`^${prefix.replace(/[[\]]/g, '\\$&')}\\[(\\d+)\\]\\[([^\\]]+)\\]$`);
  return {
    name,
    // Indexes mean nothing across sources: a list is one step's, or entry 0 of one step and
    // entry 1 of another could be one address twice.
    has: (param) => param.startsWith(`${prefix}[`),
    label: (param) => {
      const match = part.exec(param);
      if (!match) return param;
      const index = Number(match[1]);
      return index === 0 ? match[2]! : `#${index + 1} ${match[2]!}`;
    },
  };
}

export const MERGE_UNITS: readonly MergeUnit[] = [
  {
    name: 'employee',
    anchor: COMPANY,
    has: (param) => param === COMPANY || param === POSITION,
    label: (param) => (param === COMPANY ? 'company' : param === POSITION ? 'position' : param),
  },
  list('addresses', 'user[account_attributes][addresses_attributes]'),
  list('phones', 'user[item_attributes][phones_attributes]'),
  list('preferences', 'user[account_attributes][preferences_attributes]'),
];

/** The unit `param` is a part of, if any. */
export function unitOf(param: string): MergeUnit | undefined {
  return MERGE_UNITS.find((unit) => unit.has(param));
}

/** The row whose parts a unit takes, and the rows that said something else. */
export interface UnitPick<Row> {
  winner: Row;
  /** Rows that fill a part with a value the winner's unit does not have. */
  lost: Row[];
}

/**
 * The row, of `order`, that the unit comes from: the first to fill its anchor, else the first
 * to fill any part; `undefined` when no row fills any. A row loses only when it fills a part
 * with another value than the winner's: a row that says less than the winner drops nothing.
 */
export function pickUnit<Row>(
  unit: MergeUnit,
  parts: readonly string[],
  order: readonly Row[],
  params: (row: Row) => FlatParams,
): UnitPick<Row> | undefined {
  const filled = (row: Row, part: string): boolean => (params(row)[part] ?? '') !== '';
  const winner =
    (unit.anchor === undefined ? undefined : order.find((row) => filled(row, unit.anchor!))) ??
    order.find((row) => parts.some((part) => filled(row, part)));
  if (winner === undefined) return undefined;
  const won = params(winner);
  const lost = order.filter(
    (row) =>
      row !== winner && parts.some((part) => filled(row, part) && params(row)[part] !== (won[part] ?? '')),
  );
  return { winner, lost };
}

/** A unit's filled parts as a conflict line shows them: `company "Acme Corp", position "Editor"`. */
export function describeUnit(unit: MergeUnit, parts: readonly string[], params: FlatParams): string {
  return parts
    .filter((part) => (params[part] ?? '') !== '')
    .map((part) => `${unit.label(part)} "${params[part]!}"`)
    .join(', ');
}
