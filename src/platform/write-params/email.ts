import { z } from 'zod';

// The HTML Living Standard's "valid e-mail address" (what browsers accept in
// <input type=email>), with one pragmatic addition: the domain needs a dot, because an
// attendee address like `bob@localhost` is a typo, not a mailbox. Non-ASCII addresses are
// refused; internationalised domains must arrive punycoded (`xn--…`).

/** RFC 5321's limits: 64 octets before the `@`, 254 in all. */
export const EMAIL_MAX_LENGTH = 254;
const LOCAL_PART_MAX_LENGTH = 64;
const DOMAIN_LABEL_MAX_LENGTH = 63;

// The characters the standard allows before the `@`, by ASCII code. Checked with a table
// and one loop rather than regular expressions and a split: every row's address goes
// through here, and nearly all of them pass.
const LOCAL_CHARS = new Uint8Array(128);
for (const c of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.!#$%&'*+/=?^_`{|}~-")
  LOCAL_CHARS[c.charCodeAt(0)] = 1;

function isAlphanumeric(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39);
}

/** Whether `value` is an e-mail address the platform will accept (docs/write-params.md). */
export function isEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > LOCAL_PART_MAX_LENGTH) return false;
  for (let i = 0; i < at; i++) {
    const code = value.charCodeAt(i);
    if (code >= 128 || LOCAL_CHARS[code] === 0) return false;
  }
  // Domain labels: 1 to 63 letters, digits and hyphens, not starting or ending with a hyphen.
  let labels = 0;
  let start = at + 1;
  for (let i = start; i <= value.length; i++) {
    const code = i === value.length ? 0x2e : value.charCodeAt(i);
    if (code === 0x2e) {
      const length = i - start;
      if (length === 0 || length > DOMAIN_LABEL_MAX_LENGTH) return false;
      if (!isAlphanumeric(value.charCodeAt(start)) || !isAlphanumeric(value.charCodeAt(i - 1))) return false;
      labels++;
      start = i + 1;
    } else if (code !== 0x2d && !isAlphanumeric(code)) {
      return false;
    }
  }
  return labels >= 2;
}

export const emailSchema = z.string().refine(isEmail, { message: 'expected an e-mail address' });
