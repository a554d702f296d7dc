import { z } from 'zod';

/**
 * Response shapes of spec §2, parsed at the edge. Every object is loose: extra fields are
 * kept, and only what the connector relies on (`id`, and `client_ids` when present) is
 * required, because the spec shows examples rather than a schema and the real service
 * adds fields without notice.
 */

const stringOrNull = z.string().nullable();

export const platformUserSchema = z.looseObject({
  id: z.number().int(),
  first_name: stringOrNull.optional(),
  last_name: stringOrNull.optional(),
  current_state: stringOrNull.optional(),
  updated_on: stringOrNull.optional(),
  client_ids: z.array(z.string()).optional(),
  employee: z.looseObject({}).nullable().optional(),
  profile: z.looseObject({}).nullable().optional(),
  tags: z.array(z.looseObject({ tag_name: z.string().optional() })).optional(),
  content: stringOrNull.optional(),
  icon_id: z.number().nullable().optional(),
  phones: z.array(z.unknown()).optional(),
  web_links: z.record(z.string(), z.unknown()).nullable().optional(),
  addresses: z.array(z.looseObject({})).optional(),
});
export type PlatformUser = z.infer<typeof platformUserSchema>;

export const speakerLinkSchema = z.looseObject({
  id: z.union([z.string(), z.number()]).optional(),
  event_id: z.number().int().optional(),
  user_id: z.number().int().optional(),
  speaker_type: z.string().optional(),
});
export type SpeakerLink = z.infer<typeof speakerLinkSchema>;

export const platformEventSchema = z.looseObject({
  id: z.number().int(),
  name: stringOrNull.optional(),
  start: stringOrNull.optional(),
  finish: stringOrNull.optional(),
  parent_id: z.number().int().nullable().optional(),
  track: z.looseObject({}).nullable().optional(),
  updated_on: stringOrNull.optional(),
  tags: z.array(z.looseObject({})).optional(),
  content: stringOrNull.optional(),
  icon_id: z.number().nullable().optional(),
  client_ids: z.array(z.string()).optional(),
  location: z.looseObject({}).nullable().optional(),
  speakers: z.array(speakerLinkSchema).optional(),
  survey_id: z.number().nullable().optional(),
  hashtags: stringOrNull.optional(),
});
export type PlatformEvent = z.infer<typeof platformEventSchema>;

/** One entry of the array that `PUT /event/schedule` answers (§2.6). */
export const scheduleEntrySchema = z.looseObject({
  id: z.number().int(),
  client_ids: z.array(z.string()).default([]),
});
export type ScheduleEntry = z.infer<typeof scheduleEntrySchema>;

/** §2.1: `{json_class: 'Time', s, n}` in check-in JSON. */
export const platformTimeSchema = z.looseObject({
  json_class: z.string().optional(),
  s: z.number(),
  n: z.number().optional(),
});

export const checkInSchema = z.looseObject({
  id: z.number().int(),
  display_value: stringOrNull.optional(),
  created_at: z.union([platformTimeSchema, z.string()]).nullable().optional(),
  user: z.looseObject({ id: z.number().int().optional() }).nullable().optional(),
  location: z.looseObject({}).nullable().optional(),
  mode: z.union([z.string(), z.number()]).nullable().optional(),
  type: z.string().optional(),
});
export type CheckIn = z.infer<typeof checkInSchema>;

/** §2.7: the fields of a contact record are not shown, so any object is accepted. */
export const contactSchema = z.looseObject({});
export type PlatformContact = z.infer<typeof contactSchema>;

/**
 * `/signature_test` gives "debugging feedback including the expected signing string and
 * whether the given signature is correct"; its field names are not shown, so the common
 * spellings are read and everything else is kept.
 */
export const signatureTestSchema = z.looseObject({
  valid: z.boolean().optional(),
  signature_valid: z.boolean().optional(),
  correct: z.boolean().optional(),
  expected_signing_string: z.string().optional(),
  signing_string: z.string().optional(),
  expected_sig: z.string().optional(),
  message: z.string().optional(),
  problem: z.string().nullable().optional(),
});
export type SignatureTestBody = z.infer<typeof signatureTestSchema>;

/** Error bodies (docs/design.md, "our conventions"): `{"error": text, "errors": {param: [text]}}`. */
export const errorBodySchema = z.looseObject({
  error: z.string().optional(),
  message: z.string().optional(),
  errors: z
    .union([z.record(z.string(), z.union([z.array(z.string()), z.string()])), z.array(z.string())])
    .optional(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;
