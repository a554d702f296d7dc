import { randomBytes } from 'node:crypto';

/** `20261122-014512-7f3a`: sorts by start time, short enough to type in `evsync resume`. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
