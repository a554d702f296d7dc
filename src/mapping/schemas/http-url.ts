import { z } from 'zod';

/**
 * An absolute `http:` or `https:` URL with a host, as the platform needs for web links and
 * for the photo it downloads (`icon_uri`). Spaces are refused even where WHATWG URL parsing
 * would quietly percent-encode them: they are almost always a pasted-in mistake.
 */
export function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\/[^\s]+$/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const httpUrlSchema = z.string().refine(isHttpUrl, { message: 'expected an http(s) URL' });
