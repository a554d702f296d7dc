/**
 * Small text predicates shared by the param rules. Lengths count Unicode code points, as
 * Ruby's `String#length` does for the platform's length validations: not bytes (`é` is one,
 * not two) and not UTF-16 units (an emoji outside the BMP is one, not two). A letter written
 * with a combining accent is two code points, as in Ruby.
 */
export function charLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Blank as Rails' `blank?`: empty or only whitespace. A required param that is blank is missing. */
export function isBlank(value: string | undefined): value is undefined | '' {
  return value === undefined || value.trim() === '';
}

/** A positive integer in plain decimal (`12`, not `012`, `+12` or `1e3`), within the safe range. */
export function isPositiveIntegerText(value: string): boolean {
  return /^[1-9][0-9]{0,15}$/.test(value) && Number(value) <= Number.MAX_SAFE_INTEGER;
}

/** A non-negative integer in plain decimal (`0`, `250`). */
export function isNonNegativeIntegerText(value: string): boolean {
  return value === '0' || isPositiveIntegerText(value);
}

// Anything that looks like a tag, a comment or a declaration: `<b>`, `</p>`, `<br/>`,
// `<!-- -->`. A lone `<` as in "a < b" or "<3" is text.
const HTML_TAG = /<\/?[A-Za-z][^<>]*>|<!--|<!\[CDATA\[|<![A-Za-z]/;

/** Whether the text holds HTML markup (check-in texts must be plain text). */
export function containsHtml(value: string): boolean {
  return HTML_TAG.test(value);
}

/** The first tag-like piece of `value`, to show in a message. */
export function firstHtmlTag(value: string): string | undefined {
  return HTML_TAG.exec(value)?.[0];
}

/** The code point at `offset` as messages name it, without its `U+`: `001B`, `202E`, `1F600`. */
export function codePointHex(text: string, offset: number): string {
  return (text.codePointAt(offset) ?? 0).toString(16).toUpperCase().padStart(4, '0');
}

const QUOTE_MAX_CHARS = 40;

/**
 * A value as messages quote it: JSON-escaped (newlines and control characters stay
 * visible) and cut to 40 characters with `…`. Never call it with a password.
 */
export function quote(value: string): string {
  // Look at a bounded head only: a value can be a 10 MB body.
  const chars = Array.from(value.slice(0, 2 * QUOTE_MAX_CHARS + 2));
  const shown = chars.length > QUOTE_MAX_CHARS ? `${chars.slice(0, QUOTE_MAX_CHARS).join('')}…` : value;
  return JSON.stringify(shown);
}
