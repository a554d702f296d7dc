import { ValueProblem } from './compile-transform.js';
import type { CompiledValue } from './compile-value.js';

/**
 * Line breaks inside a quoted CSV value (a form's text box, a spreadsheet cell with
 * Alt+Enter, a lone CR from an old Mac export) land in names and companies as they are,
 * and the platform shows them as they are. In a single-line field a break and the spaces
 * around it become one space; multi-line fields (a bio, a description, custom_data's JSON)
 * keep theirs.
 */

/** Params whose text may span lines: article contents (bios, descriptions) and custom_data. */
export function isMultiLine(param: string): boolean {
  return param.endsWith('[content]') || param.endsWith('[custom_data]');
}

const BREAKS = /[ \t]*(?:\r\n|\r|\n)[ \t]*/g;

/** The text on one line: every break (CR, LF, CRLF) and the spaces around it one space. */
export function oneLine(text: string): string {
  // Nearly every value has no break: two native scans, and no regular expression.
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return text;
  return text.replace(BREAKS, ' ').trim();
}

/** The value with {@link oneLine} applied last, keeping the direct path of a plain column. */
export function singleLine(value: CompiledValue): CompiledValue {
  const { read, direct } = value;
  const onRead = (values: Parameters<CompiledValue['read']>[0]): ReturnType<CompiledValue['read']> => {
    const out = read(values);
    if (out instanceof ValueProblem) return out;
    return typeof out === 'string' ? oneLine(out) : out.map(oneLine);
  };
  if (direct === undefined) return { label: value.label, read: onRead };
  const text = direct.text;
  return {
    label: value.label,
    read: onRead,
    direct: { column: direct.column, text: (cell) => oneLine(text(cell)) },
  };
}
