import { z } from 'zod';

const SHAPE = /^https?:\/\/[^\s/\\][^\s\\]*$/i;

// Hosts repeat across rows (every LinkedIn link, every company site), and parsing a URL is
// the dearest check of a user row: whether a `scheme://authority` parses is remembered,
// for a bounded number of them so that a file of distinct hosts cannot grow memory.
const AUTHORITY_CACHE_LIMIT = 4096;
const authorityParses = new Map<string, boolean>();

/**
 * An absolute `http:` or `https:` URL with a host, as the platform needs for web links and
 * for the photo it downloads (`icon_uri`). Stricter than WHATWG URL parsing where that parser
 * quietly repairs input: spaces (percent-encoded there), backslashes (read as `/`) and a
 * third slash (`https:///host`) are refused, as they are almost always a pasted-in mistake.
 */
export function isHttpUrl(value: string): boolean {
  if (!SHAPE.test(value)) return false;
  // Only the authority can make a URL fail to parse: once the parser reaches the `/`, `?`
  // or `#` that ends it, path, query and fragment are percent-encoded, never refused.
  const end = authorityEnd(value);
  const authority = end === value.length ? value : value.slice(0, end);
  // The parser trims C0 controls off the end of its input, which would hide one that ends
  // an authority followed by a path: such a value is parsed whole.
  if (authority !== value && authority.charCodeAt(authority.length - 1) <= 0x20) return parses(value);
  let ok = authorityParses.get(authority);
  if (ok === undefined) {
    ok = parses(authority);
    if (authorityParses.size < AUTHORITY_CACHE_LIMIT) authorityParses.set(authority, ok);
  }
  return ok;
}

function authorityEnd(value: string): number {
  for (let i = value.indexOf('//') + 2; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x2f || code === 0x3f || code === 0x23) return i; // / ? #
  }
  return value.length;
}

function parses(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const httpUrlSchema = z.string().refine(isHttpUrl, { message: 'expected an http(s) URL' });
