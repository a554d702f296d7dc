import type { FlatParams } from '../model/params.js';

/**
 * How a caller names one object: its platform id, or its `client_id`, which may stand in
 * for `{id}` in a member path (docs/design.md, "our conventions"). A bare number is a platform id.
 */
export type MemberRef = number | { id: number } | { clientId: string };

export interface MemberTarget {
  path: string;
  /** `{client_id}` when the client id stands in for the path's `{id}`, else empty. */
  params: FlatParams;
}

/** `('/user/member', 12)` → `/user/member/12`; `('/user/member', {clientId})` → `/user/member` + `client_id`. */
export function memberTarget(basePath: string, ref: MemberRef): MemberTarget {
  if (typeof ref === 'number') return { path: `${basePath}/${idSegment(ref)}`, params: {} };
  if ('id' in ref) return { path: `${basePath}/${idSegment(ref.id)}`, params: {} };
  if (ref.clientId === '') throw new TypeError(`${basePath}: an empty client_id cannot name an object`);
  return { path: basePath, params: { client_id: ref.clientId } };
}

function idSegment(id: number): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`not a platform id: ${id}`);
  return String(id);
}

export function describeRef(ref: MemberRef): string {
  if (typeof ref === 'number') return `id ${ref}`;
  return 'id' in ref ? `id ${ref.id}` : `client_id "${ref.clientId}"`;
}
