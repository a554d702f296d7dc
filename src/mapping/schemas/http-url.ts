import { z } from 'zod';

/**
 * An absolute `http:` or `https:` URL with a host, as the platform needs for web links and
 * for the photo it downloads (`icon_uri`). Stricter than WHATWG URL parsing where that parser
 * quietly repairs input: spaces (percent-encoded there), backslashes (read as `/`) and a
 * third slash (`https:///host`) are refused, as they are almost always a pasted-in mistake.
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^\s/\\][^\s\\]*$/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const httpUrlSchema = z.string().refine(isHttpUrl, { message: 'expected an http(s) URL' });
