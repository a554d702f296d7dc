import { isHttpUrl } from '../../platform/write-params/http-url.js';

/** The hosts a profile link of a network is written with, the first being the one sent. */
export const NETWORK_HOSTS = {
  twitter: ['x.com', 'twitter.com', 'www.twitter.com', 'www.x.com', 'mobile.twitter.com'],
  github: ['github.com', 'www.github.com'],
  linkedin: ['www.linkedin.com', 'linkedin.com'],
} as const;
export type Network = keyof typeof NETWORK_HOSTS;

/** A handle as networks allow it: letters, digits, `_`, `.` and `-`, at most 100 characters. */
const HANDLE = /^[\p{L}\p{N}_.-]{1,100}$/u;

/**
 * A profile link as people type it into a form → an https URL, or `undefined` when the text
 * is none (`Ada on X`, `n/a`): `@ada`, `ada`, `x.com/ada`, `twitter.com/@ada` and
 * `https://twitter.com/ada` all become `https://x.com/ada`. A URL of another site stays as it
 * is (a person may give their Mastodon profile in the "Twitter" field).
 */
export function handleUrl(text: string, network: Network): string | undefined {
  const value = text.trim();
  if (value === '') return value;
  if (isHttpUrl(value)) return value;
  const hosts: readonly string[] = NETWORK_HOSTS[network];
  const [host = '', ...path] = value.replace(/^\/\//, '').split('/');
  if (path.length > 0 && hosts.includes(host.toLowerCase())) {
    const handle = stripAt(path.filter((part) => part !== '').join('/'));
    if (network === 'linkedin' ? /^[\w./-]+$/u.test(handle) : HANDLE.test(handle))
      return `https://${hosts[0]}/${handle}`;
    return undefined;
  }
  // A site without its scheme: `example.org/ada`.
  if (path.length > 0 || /^[\w-]+(\.[\w-]+)+$/.test(value)) {
    const url = `https://${value.replace(/^\/\//, '')}`;
    return isHttpUrl(url) && value.includes('.') && !value.startsWith('@') ? url : undefined;
  }
  const handle = stripAt(value);
  if (network === 'linkedin') return HANDLE.test(handle) ? `https://${hosts[0]}/in/${handle}` : undefined;
  return HANDLE.test(handle) ? `https://${hosts[0]}/${handle}` : undefined;
}

function stripAt(handle: string): string {
  return handle.startsWith('@') ? handle.slice(1) : handle;
}
