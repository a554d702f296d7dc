import { z } from 'zod';

import { CODE } from '../../errors/codes.js';
import type { FlatParams } from '../../model/params.js';
import { checkCheckInParams, CHECK_IN_PARAM_PATTERNS } from './check-in-params.js';
import { checkEventParams, EVENT_INDEXED_GROUPS, eventParamPatterns } from './event-params.js';
import type { IndexedGroups } from './indexed-groups.js';
import {
  checkContactParams,
  checkRsvpParams,
  checkScheduleParams,
  checkSpeakerParams,
  CONTACT_CHANGE_PARAM_PATTERNS,
  CONTACT_LIST_PARAM_PATTERNS,
  RSVP_PARAM_PATTERNS,
  SCHEDULE_INDEXED_GROUPS,
  SCHEDULE_PARAM_PATTERNS,
  SPEAKER_PARAM_PATTERNS,
} from './link-params.js';
import { ParamChecker } from './param-checker.js';
import { USER_INDEXED_GROUPS } from './user-account-params.js';
import { checkUserParams, userParamPatterns } from './user-params.js';
import type { WriteParamIssue } from './write-param-issue.js';

export type { WriteParamIssue, WriteParamIssueCode } from './write-param-issue.js';

/** Every write operation whose params can be validated. */
export const WRITE_OPERATIONS = [
  'user.create',
  'user.update',
  'event.create',
  'event.update',
  'speaker.add',
  'speaker.remove',
  'rsvp.add',
  'rsvp.remove',
  'schedule.replace',
  'contact.list',
  'contact.add',
  'contact.remove',
  'check_in.create',
] as const;
export const writeOperationSchema = z.enum(WRITE_OPERATIONS);
export type WriteOperation = z.infer<typeof writeOperationSchema>;

export interface ValidateWriteParamsOptions {
  /** The vendor word of `user[<vendor>_auth_attributes]` (see `src/platform/vendor.ts`). */
  vendor: string;
  /**
   * Report params the operation does not know as `UNKNOWN_PARAM`. Off by default: the
   * platform (and the sandbox) ignore unknown params, as Rails does.
   * @defaultValue `false`
   */
  strict?: boolean;
  /**
   * The `{id}` of the request path, when it has one. Speaker and RSVP requests need it or a
   * `client_id` to name the event; without `pathId` they need `client_id`. A bad `pathId`
   * is reported under the param name `id`.
   */
  pathId?: string;
  /**
   * Params whose value is known to be a JSON object, because the caller built it with
   * `JSON.stringify` of one (a mapping's `{json: …}`): they are not parsed again to be checked.
   */
  jsonObjects?: ReadonlySet<string>;
}

// Transport params: signing and format, never write params (spec §5, docs/design.md "response format").
const TRANSPORT_PARAMS = new Set(['key_id', 'sig', 'format']);

/**
 * Checks the write params of one request against the spec's rules (§4, §8) and returns
 * every problem found, in a stable order; an empty array means valid.
 */
export function validateWriteParams(
  operation: WriteOperation,
  params: FlatParams,
  options: ValidateWriteParamsOptions,
): WriteParamIssue[] {
  const check = new ParamChecker(
    params,
    operation.endsWith('.update') ? 'update' : 'create',
    groupsOf(operation),
    options.jsonObjects,
  );
  switch (operation) {
    case 'user.create':
    case 'user.update':
      checkUserParams(check, options.vendor);
      break;
    case 'event.create':
    case 'event.update':
      checkEventParams(check);
      break;
    case 'speaker.add':
    case 'speaker.remove':
      checkSpeakerParams(check, options.pathId, operation === 'speaker.add');
      break;
    case 'rsvp.add':
    case 'rsvp.remove':
      checkRsvpParams(check, options.pathId);
      break;
    case 'schedule.replace':
      checkScheduleParams(check);
      break;
    case 'contact.list':
    case 'contact.add':
    case 'contact.remove':
      checkContactParams(check, operation !== 'contact.list');
      break;
    case 'check_in.create':
      checkCheckInParams(check);
      break;
  }
  if (options.strict) reportUnknownParams(check, knownParamMatcher(operation, options.vendor));
  return check.issues;
}

function groupsOf(operation: WriteOperation): IndexedGroups | undefined {
  if (operation.startsWith('user.')) return USER_INDEXED_GROUPS;
  if (operation.startsWith('event.')) return EVENT_INDEXED_GROUPS;
  if (operation === 'schedule.replace') return SCHEDULE_INDEXED_GROUPS;
  return undefined;
}

function reportUnknownParams(check: ParamChecker, isKnown: (name: string) => boolean): void {
  for (const name of check.names) {
    if (TRANSPORT_PARAMS.has(name) || isKnown(name)) continue;
    // The value is not quoted: an unknown param may hold anything, a password included.
    check.report(name, CODE.UNKNOWN_PARAM, 'not a param of this operation: the platform would ignore it');
  }
}

const matcherCache = new Map<string, (name: string) => boolean>();

/** Whether a param name belongs to `operation` (used by strict mode; cached per vendor). */
export function knownParamMatcher(operation: WriteOperation, vendor: string): (name: string) => boolean {
  const cacheKey = `${operation} ${vendor}`;
  const cached = matcherCache.get(cacheKey);
  if (cached) return cached;
  const patterns = knownParamPatterns(operation, vendor);
  const exact = new Set(patterns.filter((p): p is string => typeof p === 'string'));
  const regexps = patterns.filter((p): p is RegExp => p instanceof RegExp);
  const matcher = (name: string): boolean => exact.has(name) || regexps.some((re) => re.test(name));
  matcherCache.set(cacheKey, matcher);
  return matcher;
}

function knownParamPatterns(operation: WriteOperation, vendor: string): (string | RegExp)[] {
  switch (operation) {
    case 'user.create':
      return userParamPatterns(vendor, 'create');
    case 'user.update':
      return userParamPatterns(vendor, 'update');
    case 'event.create':
      return eventParamPatterns('create');
    case 'event.update':
      return eventParamPatterns('update');
    case 'speaker.add':
      return SPEAKER_PARAM_PATTERNS;
    case 'speaker.remove':
      return SPEAKER_PARAM_PATTERNS.filter((name) => name !== 'speaker[type_name]');
    case 'rsvp.add':
    case 'rsvp.remove':
      return RSVP_PARAM_PATTERNS;
    case 'schedule.replace':
      return SCHEDULE_PARAM_PATTERNS;
    case 'contact.list':
      return CONTACT_LIST_PARAM_PATTERNS;
    case 'contact.add':
    case 'contact.remove':
      return CONTACT_CHANGE_PARAM_PATTERNS;
    case 'check_in.create':
      return CHECK_IN_PARAM_PATTERNS;
  }
}
