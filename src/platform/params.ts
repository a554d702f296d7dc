import type { FlatParams } from '../model/params.js';
import { boundedMemo } from '../model/bounded-memo.js';

/** A nested value that flattens to bracketed params. `undefined` and `null` are left out. */
export type NestedParam = string | number | boolean | null | undefined | NestedParam[] | NestedParams;
export interface NestedParams {
  [key: string]: NestedParam;
}

/** `{user: {first_name: 'Ada'}}` → `{'user[first_name]': 'Ada'}`; arrays index from 0. */
export function flattenParams(nested: NestedParams): FlatParams {
  const flat: FlatParams = {};
  const visit = (prefix: string, value: NestedParam): void => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) {
      value.forEach((item, index) => visit(`${prefix}[${index}]`, item));
    } else if (typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) visit(prefix ? `${prefix}[${key}]` : key, child);
    } else {
      setOwn(flat, prefix, String(value));
    }
  };
  visit('', nested);
  return flat;
}

/** Splits `a[b][0][c]` into `['a', 'b', '0', 'c']`; a malformed name stays one segment. */
export function paramPath(name: string): string[] {
  const open = name.indexOf('[');
  if (open <= 0 || !name.endsWith(']')) return [name];
  const segments = [name.slice(0, open)];
  const rest = name.slice(open);
  const pattern = /\[([^[\]]*)\]/gy;
  let consumed = 0;
  for (let match = pattern.exec(rest); match; match = pattern.exec(rest)) {
    segments.push(match[1] ?? '');
    consumed = pattern.lastIndex;
  }
  return consumed === rest.length ? segments : [name];
}

/**
 * The inverse of {@link flattenParams}: bracketed names become nested objects. Numeric
 * segments stay object keys (`{'0': …}`) because the platform's `[n]` indexes are keys of
 * a hash, not positions; use {@link indexedList} to read them in order.
 */
export function unflattenParams(flat: FlatParams): NestedParams {
  const root: NestedParams = {};
  for (const [name, value] of Object.entries(flat)) {
    const path = paramPath(name);
    let node: NestedParams = root;
    for (const segment of path.slice(0, -1)) {
      const next = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (typeof next === 'object' && next !== null && !Array.isArray(next)) {
        node = next;
      } else {
        const created: NestedParams = {};
        setOwn(node, segment, created);
        node = created;
      }
    }
    setOwn(node, path[path.length - 1] ?? name, value);
  }
  return root;
}

/** The values of a `{'0': a, '1': b}` hash in index order; other keys are ignored. */
export function indexedList<T extends NestedParam>(hash: NestedParam): T[] {
  if (typeof hash !== 'object' || hash === null || Array.isArray(hash)) return [];
  return Object.keys(hash)
    .filter((key) => /^\d+$/.test(key))
    .sort((a, b) => Number(a) - Number(b))
    .map((key) => hash[key] as T);
}

/**
 * Form/query encoding for transport only: every byte that is not unreserved is
 * percent-encoded (so `+`, `&`, `=`, `%`, newlines and non-ASCII text survive), brackets
 * included. The signature is computed on the unencoded strings, never on this.
 */
export function encodeForm(params: FlatParams): string {
  let out = '';
  for (const key in params) {
    if (!Object.hasOwn(params, key)) continue;
    if (out !== '') out += '&';
    out += `${encodedName(key)}=${encodeComponent(params[key] ?? '')}`;
  }
  return out;
}

/**
 * Param names repeat on every call of a kind: each is encoded once. Bounded, since a name
 * can come from a mapping file's custom fields.
 */
const encodedName = boundedMemo((name: string) => encodeComponent(name), 2_000);

/** `%XX` for each ASCII code that is not unreserved (RFC 3986 §2.3), null for those kept. */
const ASCII_ESCAPES: ReadonlyArray<string | null> = Array.from({ length: 128 }, (_, code) =>
  /[A-Za-z0-9\-._~]/.test(String.fromCharCode(code))
    ? null
    : `%${code.toString(16).toUpperCase().padStart(2, '0')}`,
);

/**
 * Every byte but the unreserved ones percent-encoded. ASCII text (nearly every value) is
 * escaped from a table, which costs a third of `encodeURIComponent`; other text goes
 * through it, with the `!'()*` it leaves alone encoded too.
 */
function encodeComponent(text: string): string {
  let out = '';
  let kept = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code >= 128) return encodeNonAscii(text);
    const escape = ASCII_ESCAPES[code];
    if (escape === null || escape === undefined) continue;
    out += text.slice(kept, i) + escape;
    kept = i + 1;
  }
  return kept === 0 ? text : out + text.slice(kept);
}

const SUB_DELIM = /[!'()*]/;
const SUB_DELIMS = /[!'()*]/g;

/** `encodeURIComponent` leaves `!'()*` alone; forms encode them too. */
function encodeNonAscii(text: string): string {
  const encoded = encodeURIComponent(text);
  return SUB_DELIM.test(text)
    ? encoded.replace(SUB_DELIMS, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    : encoded;
}

/**
 * Assigns an own property even for `__proto__`: a param name comes from a request or a
 * file, and a plain `obj[key] = v` with that name would drop it, or (for nested params)
 * write into `Object.prototype`. Only that name runs a setter; every other name takes
 * the plain assignment, which is several times cheaper than `defineProperty` and keeps
 * the object out of V8's slow dictionary mode (the sandbox decodes every request's params).
 */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** Thrown by {@link decodeForm} for a body or query that is not valid form encoding. */
export class FormDecodeError extends Error {
  override readonly name = 'FormDecodeError';
}

/**
 * Decodes `application/x-www-form-urlencoded` text (`+` is a space). Later duplicates win,
 * as in Rails. A malformed percent-escape is an error, not a silent mangling.
 */
export function decodeForm(text: string): FlatParams {
  const params: FlatParams = {};
  if (text === '') return params;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    setOwn(params, decodeComponent(rawKey), decodeComponent(rawValue));
  }
  return params;
}

function decodeComponent(text: string): string {
  // Most names and values have no escape at all: skip the regex and the decoder.
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new FormDecodeError(`malformed percent-escape in "${text.slice(0, 80)}"`);
  }
}
