/**
 * Who a user row describes, across the steps of a job (docs/sync-engine.md, "One person,
 * many sources"): its e-mail, trimmed and lower-cased. The platform holds one user per
 * e-mail in a conference and finds users by it case-insensitively, so two rows whose
 * e-mails differ only in case or surrounding spaces are one person there too.
 */
export type PersonKey = string & { readonly person: unique symbol };

/** The person an e-mail names, or undefined for an empty one. */
export function personKey(email: string | undefined): PersonKey | undefined {
  const normal = email?.trim().toLowerCase();
  return normal ? (normal as PersonKey) : undefined;
}

/**
 * A user's `membership` (spec §4.2), highest first: when steps disagree and the job does
 * not say which wins, the highest is kept, so that a speaker stays a speaker whichever
 * other list also has the person as press or member (docs/sync-engine.md).
 */
export const MEMBERSHIP_RANK = ['moderator', 'speaker', 'exhibitor', 'press', 'member', 'rejected'] as const;

/** A membership's place in {@link MEMBERSHIP_RANK} (0 is highest); unknown values come last. */
export function membershipRank(value: string): number {
  const rank = (MEMBERSHIP_RANK as readonly string[]).indexOf(value.trim().toLowerCase());
  return rank === -1 ? MEMBERSHIP_RANK.length : rank;
}
