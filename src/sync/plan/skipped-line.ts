/**
 * The line under a plan's or a run's table that tells meant skips, repeated rows and data
 * lost apart, so that the `skipped` column is never read as one kind of loss; '' when none.
 */
export function skippedLine(
  skipped:
    | {
        onPurpose: number;
        lost: number;
        duplicates?: number | undefined;
        sharedEmails?: number | undefined;
        suppressed?: number | undefined;
      }
    | undefined,
): string {
  const duplicates = skipped?.duplicates ?? 0;
  const shared = [sharedEmailsLine(skipped?.sharedEmails ?? 0), suppressedLine(skipped?.suppressed ?? 0)]
    .filter((line) => line !== '')
    .join('\n');
  if (!skipped || skipped.onPurpose + skipped.lost + duplicates === 0) return shared;
  const repeated =
    duplicates > 0
      ? `${duplicates} duplicate${duplicates === 1 ? '' : 's'} (a row repeating another's key: left out by on_duplicate, or replaced by a later step's row), `
      : '';
  const line = `Skipped: ${skipped.onPurpose} on purpose (left out by a \`when:\` condition, or naming a user or event that was, or that a run deleted), ${repeated}${skipped.lost} lost for missing data.`;
  return shared === '' ? line : `${line}\n${shared}`;
}

/**
 * Rows giving an earlier row's e-mail to another person (`MAPPING_SHARED_EMAIL`), failed or
 * left out: counted apart, because the platform keys users by e-mail (docs/mapping.md).
 */
function sharedEmailsLine(count: number): string {
  if (count === 0) return '';
  return `Shared e-mails: ${count} row${count === 1 ? ' gives' : 's give'} another person's e-mail (ticket holders of one order?): the platform keeps one user per e-mail, so ${count === 1 ? 'it is' : 'they are'} not sent as given; see on_shared_email in docs/mapping.md.`;
}

/** Rows naming a person erased with `evsync forget`: suppressed, never a loss (docs/privacy.md). */
function suppressedLine(count: number): string {
  if (count === 0) return '';
  return `Suppressed: ${count} row${count === 1 ? '' : 's'} ${count === 1 ? 'names' : 'name'} a person erased in this conference (evsync forget): not sent, and nothing of ${count === 1 ? 'it' : 'them'} kept.`;
}
