import { z } from 'zod';
import { explainIssues } from '../config/zod-issues.js';
import { REMOVABLE_KINDS } from './intent-identity.js';
import type {
  ConditionSpec,
  IntentSpec,
  MappingFile,
  TransformSpec,
  ValueSpec,
} from './mapping-file-schema.js';
import { intentSpecSchema, mappingFileSchema, valueSchema } from './mapping-file-schema.js';
import { paramNameProblem } from './param-name-problem.js';
import { resolveParamName } from './param-aliases.js';
import { ADDRESS_FIELDS, PHONE_FIELDS } from '../platform/write-params/user-account-params.js';
import { isTimeZone } from '../time/time-zone.js';

type Issue = { path: PropertyKey[]; message: string };

/**
 * The mapping-file schema with the rules that need more than structure: param names the
 * platform knows (asked of the write-param validator itself, so the two never disagree),
 * time zones, regular expressions, templates. Every problem is reported at once, with its
 * path, so loadYamlFile can point at its line: when the file's structure is wrong, the
 * rules still check every intent whose own structure is right.
 */
export function mappingFileSchemaFor(vendor: string) {
  return z.unknown().transform((raw, ctx): MappingFile => {
    const parsed = mappingFileSchema.safeParse(raw);
    const issues = parsed.success
      ? mappingFileIssues(parsed.data, vendor)
      : [
          ...explainIssues(parsed.error.issues, [], mappingFileSchema),
          ...wellFormedIntentIssues(raw, vendor),
        ];
    for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
    return parsed.success ? parsed.data : z.NEVER;
  });
}

/**
 * The rules of each intent, in a file whose structure failed: a malformed value (already
 * reported) stands in as a plain column, so its param's name is still checked; an intent
 * still malformed after that is left to its structural problems.
 */
function wellFormedIntentIssues(raw: unknown, vendor: string): Issue[] {
  const intents = (raw as { intents?: unknown } | null)?.intents;
  if (!Array.isArray(intents)) return [];
  return intents.flatMap((intent, i) => {
    const parsed = intentSpecSchema.safeParse(withWellFormedValues(intent));
    return parsed.success ? intentIssues(parsed.data, vendor, ['intents', i]) : [];
  });
}

const STAND_IN = 'column';

function withWellFormedValues(intent: unknown): unknown {
  if (intent === null || typeof intent !== 'object' || Array.isArray(intent)) return intent;
  const copy: Record<string, unknown> = { ...(intent as Record<string, unknown>) };
  const params = copy.params;
  if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
    copy.params = Object.fromEntries(
      Object.entries(params).map(([name, value]) => [
        name,
        valueSchema.safeParse(value).success ? value : STAND_IN,
      ]),
    );
  }
  if (copy.key !== undefined && !valueSchema.safeParse(copy.key).success) copy.key = STAND_IN;
  const shape = intentSpecSchema.shape;
  for (const field of ['when', 'addresses', 'phones'] as const) {
    if (copy[field] !== undefined && !shape[field].safeParse(copy[field]).success) delete copy[field];
  }
  return copy;
}

export function mappingFileIssues(file: MappingFile, vendor: string): Issue[] {
  const issues: Issue[] = [];
  file.preprocess.forEach((t, i) => issues.push(...transformIssues(t, ['preprocess', i])));
  file.intents.forEach((intent, i) => issues.push(...intentIssues(intent, vendor, ['intents', i])));
  file.unique.forEach((written, i) => {
    const known = file.intents.some((intent) =>
      Object.keys(intent.params).some(
        (p) => resolveParamName(intent.kind, p, vendor) === resolveParamName(intent.kind, written, vendor),
      ),
    );
    if (!known) issues.push({ path: ['unique', i], message: `no intent of this mapping sets "${written}"` });
  });
  return issues;
}

function intentIssues(intent: IntentSpec, vendor: string, at: PropertyKey[]): Issue[] {
  const issues: Issue[] = [];
  const { kind } = intent;
  if (intent.op === 'remove' && !REMOVABLE_KINDS.has(kind)) {
    issues.push({
      path: [...at, 'op'],
      message: `a ${kind} cannot be removed by a source row (only ${[...REMOVABLE_KINDS].join(', ')}); deletes come from mirror mode`,
    });
  }
  if (kind === 'check_in' && intent.key === undefined) {
    issues.push({
      path: [...at, 'key'],
      message: 'a check_in needs a key: give a column or template that is unique per check-in',
    });
  }
  const seen = new Map<string, string>();
  for (const [written, value] of Object.entries(intent.params)) {
    const path = [...at, 'params', written];
    const name = resolveParamName(kind, written, vendor);
    const problem = paramNameProblem(kind, written, name, vendor);
    if (problem) issues.push({ path, message: problem });
    const earlier = seen.get(name);
    if (earlier !== undefined)
      issues.push({ path, message: `sets ${name} again (already set by "${earlier}")` });
    seen.set(name, written);
    issues.push(...valueIssues(value, path));
  }
  for (const [field, allowed] of [
    ['addresses', ADDRESS_FIELDS],
    ['phones', PHONE_FIELDS],
  ] as const) {
    const blocks = intent[field];
    if (blocks === undefined) continue;
    if (kind !== 'user') issues.push({ path: [...at, field], message: `only a user has ${field}` });
    blocks.forEach((block, i) => {
      for (const [sub, value] of Object.entries(block)) {
        if (!(allowed as readonly string[]).includes(sub)) {
          issues.push({ path: [...at, field, i, sub], message: `unknown field: use ${allowed.join(', ')}` });
        }
        issues.push(...valueIssues(value, [...at, field, i, sub]));
      }
    });
  }
  for (const [i, condition] of conditions(intent.when).entries()) {
    issues.push(
      ...conditionIssues(condition, Array.isArray(intent.when) ? [...at, 'when', i] : [...at, 'when']),
    );
  }
  if (intent.key !== undefined) issues.push(...valueIssues(intent.key, [...at, 'key']));
  return issues;
}

export function conditions(when: ConditionSpec | ConditionSpec[] | undefined): ConditionSpec[] {
  if (when === undefined) return [];
  return Array.isArray(when) ? when : [when];
}

function conditionIssues(condition: ConditionSpec, at: PropertyKey[]): Issue[] {
  return condition.matches !== undefined && !isRegExp(condition.matches)
    ? [{ path: [...at, 'matches'], message: 'is not a valid regular expression' }]
    : [];
}

function valueIssues(value: ValueSpec, at: PropertyKey[]): Issue[] {
  if (typeof value === 'string' || Array.isArray(value)) return [];
  if ('json' in value) {
    return Object.entries(value.json).flatMap(([key, inner]) => valueIssues(inner, [...at, 'json', key]));
  }
  const issues: Issue[] = [];
  if ('first_of' in value) {
    value.first_of.forEach((choice, i) => issues.push(...valueIssues(choice, [...at, 'first_of', i])));
  }
  if ('template' in value && !/^(?:[^{}]|\{[^{}]+\})*$/.test(value.template)) {
    issues.push({
      path: [...at, 'template'],
      message: 'has an unbalanced { or }: write {Column Name} placeholders',
    });
  }
  (value.transforms ?? []).forEach((t, i) => issues.push(...transformIssues(t, [...at, 'transforms', i])));
  return issues;
}

function transformIssues(transform: TransformSpec, at: PropertyKey[]): Issue[] {
  if (typeof transform === 'string') return [];
  if ('datetime' in transform) {
    const zone = transform.datetime.timezone;
    if (zone !== undefined && !isTimeZone(zone)) {
      return [
        {
          path: [...at, 'datetime', 'timezone'],
          message: `"${zone}" is not an IANA time zone (e.g. Europe/Berlin)`,
        },
      ];
    }
    if (zone === undefined && transform.datetime.timezone_column === undefined) {
      return [{ path: [...at, 'datetime'], message: 'give timezone (an IANA zone) or timezone_column' }];
    }
  }
  if ('replace' in transform && !isRegExp(transform.replace.pattern)) {
    return [{ path: [...at, 'replace', 'pattern'], message: 'is not a valid regular expression' }];
  }
  return [];
}

function isRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'i');
    return true;
  } catch {
    return false;
  }
}
