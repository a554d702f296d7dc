import type { Intent } from '../model/intent.js';

/**
 * The intent with the params it leaves empty only because their column is one the source's
 * format cannot carry (`SourceRow.uncarried`). A param is known by the column it reads
 * (`IntentDraft.columns`): one read from several columns, a template or a constant is
 * taken as carried, so at worst it is cleared as before.
 */
export function withUncarried(
  intent: Intent,
  columns: Readonly<Record<string, string>> | undefined,
  uncarried: readonly string[],
): Intent {
  if (columns === undefined) return intent;
  const names: string[] = [];
  for (const name in columns)
    if (uncarried.includes(columns[name]!) && (intent.params[name] ?? '') === '') names.push(name);
  return names.length === 0 ? intent : { ...intent, uncarried: names };
}
