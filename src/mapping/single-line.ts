import type { RowMapping } from './loaded-mapping.js';

/**
 * Line breaks inside a quoted CSV value (a form's text box, a spreadsheet cell with
 * Alt+Enter, a lone CR from an old Mac export) land in names and companies as they are,
 * and the platform shows them as they are: 21 of 409 company names of a real export. In a
 * single-line field a break and the spaces around it become one space; multi-line fields
 * (a bio, a description) keep theirs.
 *
 * Only rows whose source says a value spans lines (`SourceRow.lineBreaks`) come here: the
 * CSV reader counts the breaks of every row anyway, for line numbers, so other rows pay
 * nothing.
 */

/** Params whose text may span lines: article contents (bios, descriptions) and custom_data. */
export function isMultiLine(param: string): boolean {
  return param.endsWith('[content]') || param.endsWith('[custom_data]');
}

const BREAKS = /[ \t]*(?:\r\n|\r|\n)[ \t]*/g;

/** The text on one line: every break (CR, LF, CRLF) and the spaces around it one space. */
export function oneLine(text: string): string {
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return text;
  return text.replace(BREAKS, ' ').trim();
}

/** The row's drafts with every single-line param on one line (in place: a row's drafts are its own). */
export function withSingleLineParams(mapping: RowMapping): RowMapping {
  if (mapping.type !== 'drafts') return mapping;
  for (const draft of mapping.drafts) {
    const params = draft.params;
    for (const name in params) if (!isMultiLine(name)) params[name] = oneLine(params[name]!);
  }
  return mapping;
}
