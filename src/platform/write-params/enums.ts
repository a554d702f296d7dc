import { z } from 'zod';

/** `user[membership]` values (spec 2.3); `member` is the platform's default. */
export const MEMBERSHIPS = ['member', 'moderator', 'speaker', 'exhibitor', 'press', 'rejected'] as const;
export const membershipSchema = z.enum(MEMBERSHIPS);
export type Membership = z.infer<typeof membershipSchema>;

/** `speaker[type_name]` and `event[speakers_attributes][n][type_name]` values (spec 2.5). */
export const SPEAKER_TYPES = ['speaker', 'moderator', 'author', 'presenter', 'submitter', 'chair'] as const;
export const speakerTypeSchema = z.enum(SPEAKER_TYPES);
export type SpeakerType = z.infer<typeof speakerTypeSchema>;

/** `check_in[location_item][type]` values in mode 1 (spec 4.1); chatter allows `event` only. */
export const LOCATION_ITEM_TYPES = ['exhibitor', 'user', 'feature', 'event'] as const;
export const locationItemTypeSchema = z.enum(LOCATION_ITEM_TYPES);

/** Length limits of spec §8 and docs/design.md (client_id), in characters (code points). */
export const LENGTH_LIMITS = {
  salutation: 20,
  firstName: 64,
  lastName: 64,
  clientId: 64,
} as const;
