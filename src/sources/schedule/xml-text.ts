import { CODE } from '../../errors/codes.js';
import { XMLValidator } from 'fast-xml-parser';
import { SourceError } from '../source-error.js';

const REFERENCE = /&(?:#([0-9]+)|#[xX]([0-9A-Fa-f]+)|(amp|lt|gt|quot|apos));/g;
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes XML's character references (`&#228;`, `&#x263A;`, `&#13;`) and its five
 * predefined entities in one pass, so `&amp;#228;` stays the text `&#228;`. A reference to
 * no character (`&#0;`, a lone surrogate) becomes U+FFFD rather than staying as markup.
 * Other named entities (`&nbsp;`) are not XML's: they stay as written, and the HTML and
 * Markdown transforms read them as HTML does.
 */
export function decodeXmlReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(REFERENCE, (_whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return PREDEFINED[name] ?? '';
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex ?? '', 16);
    const isChar = code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff);
    return isChar ? String.fromCodePoint(code) : '\uFFFD';
  });
}

/**
 * Throws a SourceError saying where and how `xml` is not well-formed, in words an organiser
 * can act on: a file that stops inside an element (an interrupted download) is named as
 * cut short, at its last line, with the elements left open.
 */
export function checkWellFormedXml(xml: string, where: string): void {
  const result = XMLValidator.validate(xml);
  if (result === true) return;
  const { msg, line, col } = result.err;
  const lastLine = lastLineOf(xml);
  // The validator reports elements still open at the end as "Invalid '[…]' found" at line 1.
  const open = /^Invalid '\[(.*)\]' found/s.exec(msg)?.[1];
  if (open !== undefined || line >= lastLine) {
    const names = open === undefined ? [] : [...open.matchAll(/"([^"]+)"/g)].map((match) => match[1]);
    const inside = names.length > 0 ? ` inside <${names.join('> › <')}>` : '';
    throw new SourceError(
      `${where} is cut short: it ends at line ${lastLine}${inside}: download or export it again`,
      { code: CODE.SCHEDULE_INVALID_XML },
    );
  }
  throw new SourceError(
    `${where} is not well-formed XML at line ${line}, column ${col}: ${humanXmlProblem(msg)}: fix the file or export it again`,
    { code: CODE.SCHEDULE_INVALID_XML },
  );
}

/** The 1-based number of the last line that holds anything. */
function lastLineOf(text: string): number {
  return text.trimEnd().split('\n').length;
}

/** The validator's phrases, said plainly where they are not. */
function humanXmlProblem(message: string): string {
  const closing =
    /^Expected closing tag '([^']+)' \(opened in line (\d+), col \d+\) instead of closing tag '([^']+)'/.exec(
      message,
    );
  if (closing)
    return `</${closing[3]}> closes nothing open here: <${closing[1]}> (line ${closing[2]}) is still open`;
  const char = /^char '(.)' is not expected/.exec(message);
  if (char?.[1] === '&') return 'a bare "&" (an ampersand is written "&amp;" in XML)';
  if (char) return `"${char[1]}" cannot stand here (is this XML?)`;
  return message.replace(/\.$/, '');
}
