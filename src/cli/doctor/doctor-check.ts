/** How one check of `evsync doctor` ended: `warn` is said but passes, `fail` fails the command. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

/** One check's verdict: what it found, and what to do about it when it is not fine. */
export interface CheckResult {
  /** What was checked: `node`, `platform`, `ledger`, `redis`, `step tickets`… */
  check: string;
  status: CheckStatus;
  message: string;
  fix?: string;
}

const MARK: Record<CheckStatus, string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

/** One line per check, the fix after an arrow on the same line. */
export function formatChecks(results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.check.length));
  return results
    .map(
      (r) =>
        `${MARK[r.status]}  ${r.check.padEnd(width)}  ${oneLine(r.message)}${r.fix ? ` → ${oneLine(r.fix)}` : ''}\n`,
    )
    .join('');
}

/** The last line: how many passed, warned and failed. */
export function checksVerdict(results: readonly CheckResult[]): string {
  const count = (status: CheckStatus): number => results.filter((r) => r.status === status).length;
  const failed = count('fail');
  return failed > 0
    ? `${failed} of ${results.length} checks failed: fix them (each line says how), then run evsync doctor again.\n`
    : `All ${results.length} checks passed${count('warn') > 0 ? `, ${count('warn')} with a warning` : ''}.\n`;
}

/** A check's own messages may span lines (an error's hints): one line each, as promised. */
function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .reduce((text, line) => (text === '' ? line : `${text}${text.endsWith(':') ? ' ' : '; '}${line}`), '');
}
