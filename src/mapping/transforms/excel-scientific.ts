import { quote } from '../../platform/write-params/text-rules.js';

/**
 * Excel shows a long number in a "General" cell (an attendee number, a phone number) in
 * scientific notation, `2.36021E+11`, and a CSV saved from it keeps only what it shows: the
 * digits past the sixth are gone. `,` is the decimal mark of many locales (`2,36021E+11`).
 */
const EXCEL_NUMBER = /^\d(?:[.,]\d+)?e\+\d{1,3}$/i;
/** The same number as one part of a key (`eb-2.36021E+11`), not inside a longer word. */
const EXCEL_NUMBER_IN = /(?<![\p{L}\p{N}_.,])\d(?:[.,]\d+)?e\+\d{1,3}(?![\p{L}\p{N}_.,])/iu;

/** What to do about it, said in every such message. */
const EXCEL_FIX =
  'export the file again and sync it without opening it in Excel, or import it into Excel with this column formatted as text';

/** Whether the whole value (a phone number) is a number in Excel's scientific notation. */
export function isExcelScientific(text: string): boolean {
  // Nearly every value has no `+` after its first character: no regular expression for them.
  return text.indexOf('+', 1) !== -1 && EXCEL_NUMBER.test(text.trim());
}

/** The number in Excel's scientific notation a key holds (`2.36021E+11` in `eb-2.36021E+11`), if any. */
export function excelScientificIn(text: string): string | undefined {
  if (text.indexOf('+', 1) === -1) return undefined;
  return EXCEL_NUMBER_IN.exec(text)?.[0];
}

/** Why a key holding such a number is no key. */
export function excelKeyMessage(key: string, number: string): string {
  return (
    `${quote(key)} holds ${number}, a number Excel rounded into scientific notation: its last digits are lost, ` +
    `so it cannot tell people apart between runs (two may share it): ${EXCEL_FIX}`
  );
}

/** Why such a phone number is none. */
export function excelPhoneMessage(phone: string): string {
  return `${quote(phone.trim())} is a number Excel rounded into scientific notation, not the phone number: ${EXCEL_FIX}`;
}
