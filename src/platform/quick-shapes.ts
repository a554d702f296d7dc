import type { z } from 'zod';
import { platformEventSchema, platformUserSchema } from './response-schemas.js';

/**
 * Plain shape checks of the answers every write gets back (a user, an event), tried before
 * the zod schema of the same shape. zod's parse of a loose object walks every field and
 * builds a copy of the object; at a few thousand answers a second that was a good part of
 * the client's CPU per call (docs/sync-engine.md, "CPU per call"). A check here accepts only
 * what its schema accepts unchanged (no defaults, no transforms), so an answer it accepts
 * is exactly what the schema would have returned; anything else, including every malformed
 * answer, goes through the schema, which keeps the error messages.
 */
const QUICK_CHECKS = new Map<z.ZodType, (value: unknown) => boolean>([
  [platformUserSchema, isUserShape],
  [platformEventSchema, isEventShape],
]);

/** The schema's quick check, when it has one. */
export function quickCheckOf(schema: z.ZodType): ((value: unknown) => boolean) | undefined {
  return QUICK_CHECKS.get(schema);
}

type Fields = Record<string, unknown>;

function isObject(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optional(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || check(value);
}

function nullable(value: unknown, check: (value: unknown) => boolean): boolean {
  return value === undefined || value === null || check(value);
}

const isString = (value: unknown): boolean => typeof value === 'string';
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);
const isInteger = (value: unknown): boolean => Number.isSafeInteger(value);

function isArrayOf(value: unknown, check: (item: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  for (const item of value) if (!check(item)) return false;
  return true;
}

const anything = (): boolean => true;

/** `platformUserSchema`, field by field. */
export function isUserShape(value: unknown): boolean {
  if (!isObject(value) || !isInteger(value.id)) return false;
  return (
    nullable(value.first_name, isString) &&
    nullable(value.last_name, isString) &&
    nullable(value.current_state, isString) &&
    nullable(value.updated_on, isString) &&
    optional(value.client_ids, (ids) => isArrayOf(ids, isString)) &&
    nullable(value.employee, isObject) &&
    nullable(value.profile, isObject) &&
    optional(value.tags, (tags) =>
      isArrayOf(tags, (tag) => isObject(tag) && optional(tag.tag_name, isString)),
    ) &&
    nullable(value.content, isString) &&
    nullable(value.icon_id, isNumber) &&
    optional(value.phones, (phones) => isArrayOf(phones, anything)) &&
    nullable(value.web_links, isObject) &&
    optional(value.addresses, (addresses) => isArrayOf(addresses, isObject))
  );
}

/** `platformEventSchema`, field by field (its speakers as `speakerLinkSchema`). */
export function isEventShape(value: unknown): boolean {
  if (!isObject(value) || !isInteger(value.id)) return false;
  return (
    nullable(value.name, isString) &&
    nullable(value.start, isString) &&
    nullable(value.finish, isString) &&
    nullable(value.parent_id, isInteger) &&
    nullable(value.track, isObject) &&
    nullable(value.updated_on, isString) &&
    optional(value.tags, (tags) => isArrayOf(tags, isObject)) &&
    nullable(value.content, isString) &&
    nullable(value.icon_id, isNumber) &&
    optional(value.client_ids, (ids) => isArrayOf(ids, isString)) &&
    nullable(value.location, isObject) &&
    optional(value.speakers, (speakers) => isArrayOf(speakers, isSpeakerLink)) &&
    nullable(value.survey_id, isNumber) &&
    nullable(value.hashtags, isString)
  );
}

function isSpeakerLink(value: unknown): boolean {
  return (
    isObject(value) &&
    optional(value.id, (id) => isString(id) || isNumber(id)) &&
    optional(value.event_id, isInteger) &&
    optional(value.user_id, isInteger) &&
    optional(value.speaker_type, isString)
  );
}
