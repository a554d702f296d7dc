import { hash } from 'node:crypto';
import type { FlatParams } from '../../model/params.js';

/**
 * The fingerprint of what an intent asks the platform to hold. Keys are sorted so that the
 * order a mapping emits params in never looks like a change; the op is part of it so that
 * a link turned from "add" into "remove" is sent again.
 */
export function hashIntent(op: 'upsert' | 'remove', params: FlatParams): string {
  const names = Object.keys(params).sort();
  let text: string = op;
  for (const name of names) {
    // Length-prefixed so that `a=bc` and `ab=c` can never collide.
    const value = params[name] ?? '';
    text += `\u0000${name.length}:${name}\u0000${value.length}:${value}`;
  }
  // One-shot hashing of one string: the planner hashes every row of every run, and a Hash
  // object per row with an update per param cost twice as much. The bytes hashed, and so
  // the hashes already in ledgers, are the same.
  return hash('sha256', text, 'hex');
}
