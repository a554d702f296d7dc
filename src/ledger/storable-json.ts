/**
 * `JSON.stringify` for a statement parameter that PostgreSQL expands into text and jsonb.
 * PostgreSQL text cannot hold U+0000, and jsonb refuses a `\u0000` escape and a lone
 * surrogate (`\ud800` without its pair), failing the whole statement: one row's bytes would
 * fail every result of its batch. Such characters become U+FFFD here, as a last line of
 * defence: the mapping already reports the row that carries them (see docs/ledger.md).
 *
 * The fast path looks for `\u` in the text: `JSON.stringify` writes such an escape only
 * for control characters and lone surrogates (a paired surrogate is written as is), so the
 * regex runs only on the rare text that has one. A false alarm (a literal `\u0000` typed in
 * a cell is written `\\u0000`) only costs the slow path, which changes nothing it need not.
 */
export function storableJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (!text.includes('\\u') || !UNSTORABLE_ESCAPE.test(text)) return text;
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'string' ? storableText(item) : item,
  );
}

/** A string with NUL and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

const UNSTORABLE_ESCAPE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;
/** NUL, a high surrogate not followed by a low one, a low one not preceded by a high one. */
// eslint-disable-next-line no-control-regex -- NUL is what is looked for
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
