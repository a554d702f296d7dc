import type { z } from 'zod';
import { closestKey, keysAt } from './key-suggestions.js';

type ZodIssue = z.ZodError['issues'][number];

/** One problem at a path inside a file, in words a person can act on. */
export interface ExplainedIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * zod reports a value that fits no member of a union as one "invalid input" carrying every
 * member's complaints. The member the value was clearly meant as (its type fits, it has that
 * member's keys, fewest complaints) explains it best, so its own issues are reported instead,
 * recursively: `transforms.0: expected one of trim, lower…` rather than "not a value". When no
 * member stands out, the union's own message (a hint listing the forms) stands.
 *
 * With the `schema` that was parsed, a key it does not know gets the known key it is
 * closest to: `Unrecognized key: "step": did you mean "steps"?`.
 */
export function explainIssues(
  issues: readonly ZodIssue[],
  at: readonly PropertyKey[] = [],
  schema?: z.ZodType,
): ExplainedIssue[] {
  return issues.flatMap((issue) => {
    const path = [...at, ...issue.path];
    if (issue.code === 'unrecognized_keys' && schema !== undefined)
      return [{ path, message: withSuggestions(issue.keys, keysAt(schema, path)) ?? issue.message }];
    if (issue.code !== 'invalid_union') return [{ path, message: issue.message }];
    const meant = meantMember(issue.errors);
    return meant === undefined ? [{ path, message: issue.message }] : explainIssues(meant, path, schema);
  });
}

/** zod's message for unknown keys, each followed by the known key it is closest to, if any. */
function withSuggestions(keys: readonly string[], known: Set<string>): string | undefined {
  const guesses = keys.map((key) => [key, closestKey(key, known)] as const);
  if (guesses.every(([, guess]) => guess === undefined)) return undefined;
  return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${guesses
    .map(([key, guess]) => `"${key}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`)
    .join(', ')}`;
}

const NOT_MEANT: ReadonlySet<string> = new Set(['invalid_type', 'invalid_value']);

function meantMember(members: readonly ZodIssue[][]): ZodIssue[] | undefined {
  let best: ZodIssue[] | undefined;
  let bestScore = Infinity;
  let tied = false;
  for (const member of members) {
    // A member whose type (or, for a list of words, whose value) the value does not even
    // have was not meant.
    if (member.some((issue) => issue.path.length === 0 && NOT_MEANT.has(issue.code))) continue;
    const score = member.reduce((sum, issue) => sum + (isMissingKey(issue) ? 5 : 1), 0);
    if (score < bestScore) [best, bestScore, tied] = [member, score, false];
    else if (score === bestScore) tied = true;
  }
  return tied ? undefined : best;
}

/** A required key the value lacks: a strong sign that this member was not the one meant. */
function isMissingKey(issue: ZodIssue): boolean {
  return (
    issue.path.length === 1 && issue.code === 'invalid_type' && issue.message.endsWith('received undefined')
  );
}
