import { z } from 'zod';

// The HTML Living Standard's "valid e-mail address" (what browsers accept in
// <input type=email>), with one pragmatic addition: the domain needs a dot, because an
// attendee address like `bob@localhost` is a typo, not a mailbox. Non-ASCII addresses are
// refused; internationalised domains must arrive punycoded (`xn--…`).
const LOCAL_PART = /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+$/;
const DOMAIN_LABEL = /^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

/** RFC 5321's limits: 64 octets before the `@`, 254 in all. */
export const EMAIL_MAX_LENGTH = 254;
const LOCAL_PART_MAX_LENGTH = 64;

/** Whether `value` is an e-mail address the platform will accept (docs/write-params.md). */
export function isEmail(value: string): boolean {
  if (value.length > EMAIL_MAX_LENGTH) return false;
  const at = value.lastIndexOf('@');
  if (at <= 0 || at > LOCAL_PART_MAX_LENGTH) return false;
  const local = value.slice(0, at);
  if (!LOCAL_PART.test(local)) return false;
  const labels = value.slice(at + 1).split('.');
  if (labels.length < 2) return false;
  return labels.every((label) => DOMAIN_LABEL.test(label));
}

export const emailSchema = z.string().refine(isEmail, { message: 'expected an e-mail address' });
