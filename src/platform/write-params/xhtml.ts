import { z } from 'zod';

import { codePointHex } from './text-rules.js';
import { XHTML_ENTITIES } from './xhtml-entities.js';

/** The outcome of {@link checkWellFormedXhtml}; `line` and `column` are 1-based in the fragment. */
export type XhtmlCheck = { ok: true } | { ok: false; reason: string; line: number; column: number };

/** @defaultValue `{ namedEntities: 'xhtml' }` */
export interface XhtmlCheckOptions {
  /**
   * `xhtml` accepts the named entities of XHTML 1.0 (`&nbsp;`, `&eacute;`…); `xml` only the
   * five predefined ones, for consumers that parse without the XHTML DTD.
   */
  namedEntities?: 'xhtml' | 'xml';
}

// XML 1.0 names (production [5]); `u` makes the astral range work.
const NAME_START =
  ':A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C-\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NAME_CHAR = `${NAME_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F-\\u2040`;
// The ranges are escapes, not combined characters; the lint rule cannot see through them.
// eslint-disable-next-line no-misleading-character-class
const NAME = new RegExp(`[${NAME_START}][${NAME_CHAR}]*`, 'uy');
const SPACE = /[ \t\r\n]*/y;
// Control characters are exactly what this class must exclude (XML 1.0 production [2]).
// eslint-disable-next-line no-control-regex
const CHAR_DATA = /[^<&\]\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]+/uy;
const ENTITY = /&(?:#([0-9]+)|#x([0-9A-Fa-f]+)|([A-Za-z][A-Za-z0-9]*));/y;
const XML_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);

class NotWellFormed extends Error {
  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(reason);
  }
}

/**
 * Checks that `fragment` is well-formed XML content, as if wrapped in one root element:
 * balanced and properly nested tags, quoted and unique attributes, `&` only in references,
 * no `<` in attribute values, no control characters, no DOCTYPE. It checks form, not the
 * XHTML vocabulary (`<blink>` passes). Stops at the first fault and says where it is.
 */
export function checkWellFormedXhtml(fragment: string, options: XhtmlCheckOptions = {}): XhtmlCheck {
  try {
    new FragmentScanner(fragment, options.namedEntities ?? 'xhtml').scan();
    return { ok: true };
  } catch (error) {
    if (!(error instanceof NotWellFormed)) throw error;
    const before = fragment.slice(0, error.offset);
    const line = before.split('\n').length;
    const column = error.offset - before.lastIndexOf('\n');
    return { ok: false, reason: error.reason, line, column };
  }
}

/** Whether `fragment` is well-formed XHTML content (see {@link checkWellFormedXhtml}). */
export function isWellFormedXhtml(fragment: string): boolean {
  return checkWellFormedXhtml(fragment).ok;
}

class FragmentScanner {
  private pos = 0;
  private readonly open: { name: string; offset: number }[] = [];

  constructor(
    private readonly text: string,
    private readonly entities: 'xhtml' | 'xml',
  ) {}

  scan(): void {
    const { text } = this;
    while (this.pos < text.length) {
      const ch = text[this.pos];
      if (ch === '<') this.markup();
      else if (ch === '&') this.reference();
      else if (text.startsWith(']]>', this.pos)) this.fail('"]]>" is not allowed in text; write "]]&gt;"');
      else if (ch === ']') this.pos++;
      else if (!this.take(CHAR_DATA))
        this.fail(`character U+${codePointHex(text, this.pos)} is not allowed in XML`);
    }
    const unclosed = this.open.pop();
    if (unclosed) this.fail(`<${unclosed.name}> is never closed`, unclosed.offset);
  }

  private markup(): void {
    const { text } = this;
    const start = this.pos;
    if (text.startsWith('<!--', start)) {
      const end = text.indexOf('-->', start + 4);
      if (end < 0) this.fail('comment is never closed with "-->"');
      if (text.slice(start + 4, end).includes('--')) this.fail('"--" is not allowed inside a comment');
      this.pos = end + 3;
    } else if (text.startsWith('<![CDATA[', start)) {
      const end = text.indexOf(']]>', start + 9);
      if (end < 0) this.fail('CDATA section is never closed with "]]>"');
      this.pos = end + 3;
    } else if (text.startsWith('<!', start)) {
      this.fail('a DOCTYPE or other declaration is not allowed in a fragment');
    } else if (text.startsWith('<?', start)) {
      const end = text.indexOf('?>', start + 2);
      if (end < 0) this.fail('processing instruction is never closed with "?>"');
      if (/^<\?xml(?:[ \t\r\n?]|$)/i.test(text.slice(start, start + 6))) {
        this.fail('an XML declaration is not allowed inside content');
      }
      this.pos = end + 2;
    } else if (text[start + 1] === '/') {
      this.closeTag(start);
    } else {
      this.openTag(start);
    }
  }

  private openTag(start: number): void {
    this.pos = start + 1;
    const name = this.take(NAME) ?? this.fail('"<" must start a tag; write "&lt;" for a literal "<"', start);
    const seen = new Set<string>();
    for (;;) {
      const spaced = (this.take(SPACE) ?? '') !== '';
      if (this.text.startsWith('/>', this.pos)) {
        this.pos += 2;
        return;
      }
      if (this.text[this.pos] === '>') {
        this.pos++;
        this.open.push({ name, offset: start });
        return;
      }
      if (this.pos >= this.text.length) this.fail(`tag <${name}> is never finished with ">"`, start);
      if (!spaced) this.fail(`expected a space, ">" or "/>" in tag <${name}>`);
      this.attribute(name, seen);
    }
  }

  private attribute(tag: string, seen: Set<string>): void {
    const at = this.pos;
    const name = this.take(NAME) ?? this.fail(`malformed attribute in tag <${tag}>`);
    if (seen.has(name)) this.fail(`attribute ${name} appears twice in tag <${tag}>`, at);
    seen.add(name);
    this.take(SPACE);
    if (this.text[this.pos] !== '=') this.fail(`attribute ${name} needs a quoted value (${name}="…")`);
    this.pos++;
    this.take(SPACE);
    const q = this.text[this.pos];
    if (q !== '"' && q !== "'") this.fail(`the value of attribute ${name} must be in quotes`);
    this.pos++;
    for (;;) {
      const ch = this.text[this.pos];
      if (ch === undefined) this.fail(`the value of attribute ${name} is never closed`, at);
      if (ch === q) break;
      if (ch === '<') this.fail(`"<" is not allowed in the value of attribute ${name}; write "&lt;"`);
      if (ch === '&') this.reference();
      else if (isForbiddenChar(this.text.charCodeAt(this.pos), this.text.charCodeAt(this.pos + 1))) {
        this.fail(`character U+${codePointHex(this.text, this.pos)} is not allowed in XML`);
      } else this.pos += (this.text.codePointAt(this.pos) ?? 0) > 0xffff ? 2 : 1;
    }
    this.pos++;
  }

  private closeTag(start: number): void {
    this.pos = start + 2;
    const name = this.take(NAME) ?? this.fail('malformed closing tag');
    this.take(SPACE);
    if (this.text[this.pos] !== '>') this.fail(`closing tag </${name}> is not finished with ">"`);
    this.pos++;
    const top = this.open.pop();
    if (!top) this.fail(`</${name}> closes a tag that was never opened`, start);
    if (top.name !== name) {
      this.fail(`<${top.name}> at ${describe(this.text, top.offset)} is closed by </${name}>`, start);
    }
  }

  private reference(): void {
    const at = this.pos;
    const match = this.match(ENTITY);
    if (!match) this.fail('a bare "&" must be written "&amp;"');
    const [, decimal, hex, name] = match;
    if (name !== undefined) {
      const known = this.entities === 'xml' ? XML_ENTITIES.has(name) : Object.hasOwn(XHTML_ENTITIES, name);
      if (!known) this.fail(`unknown entity &${name}; (use a numeric reference such as &#160;)`, at);
      return;
    }
    const code = decimal !== undefined ? Number(decimal) : parseInt(hex ?? '', 16);
    if (!isXmlCharCode(code)) this.fail(`&#${decimal ?? `x${hex}`}; is not an allowed XML character`, at);
  }

  private take(pattern: RegExp): string | undefined {
    return this.match(pattern)?.[0];
  }

  private match(pattern: RegExp): RegExpExecArray | undefined {
    pattern.lastIndex = this.pos;
    const match = pattern.exec(this.text);
    if (!match) return undefined;
    this.pos = pattern.lastIndex;
    return match;
  }

  private fail(reason: string, offset = this.pos): never {
    throw new NotWellFormed(reason, offset);
  }
}

function isXmlCharCode(code: number): boolean {
  return (
    code === 0x9 ||
    code === 0xa ||
    code === 0xd ||
    (code >= 0x20 && code <= 0xd7ff) ||
    (code >= 0xe000 && code <= 0xfffd) ||
    (code >= 0x10000 && code <= 0x10ffff)
  );
}

// A UTF-16 unit that cannot start an XML character (a valid surrogate pair is fine).
function isForbiddenChar(unit: number, next: number): boolean {
  if (unit >= 0xd800 && unit <= 0xdbff) return !(next >= 0xdc00 && next <= 0xdfff);
  return !isXmlCharCode(unit);
}

function describe(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `line ${before.split('\n').length}, column ${offset - before.lastIndexOf('\n')}`;
}

export const xhtmlFragmentSchema = z.string().superRefine((value, ctx) => {
  const check = checkWellFormedXhtml(value);
  if (!check.ok) {
    ctx.addIssue({
      code: 'custom',
      message: `not well-formed XHTML: ${check.reason} (line ${check.line}, column ${check.column})`,
    });
  }
});
