import { writeSync } from 'node:fs';

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: '',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};
/** Fields every line has, or that a person at a terminal does not need. */
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * One pino JSON line as a short line for a person at a terminal: `HH:MM:SS evsync: message
 * (key value, …)`, with the level for warnings and errors. The JSON was redacted before it got
 * here (see `createLogger`), so nothing secret is added. A line longer than `width` (the
 * terminal's) would wrap anywhere across the screen, in front of the progress bar: it is
 * wrapped at words within the width, its next lines indented under the message.
 */
export function humanLine(json: string, width?: number): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const level = typeof record.level === 'number' ? (LEVELS[record.level] ?? '') : '';
  const message = typeof record.msg === 'string' ? record.msg : '';
  const fields = Object.entries(record)
    .filter(([key]) => !LEFT_OUT.has(key))
    .map(([key, value]) => `${key} ${fieldText(value)}`);
  const details = fields.length > 0 ? ` (${fields.join(', ')})` : '';
  const head = `${clockTime(record.time)}evsync${level ? ` ${level}` : ''}: `;
  const line = `${message}${details}`;
  if (width === undefined || head.length + line.length <= width) return `${head}${line}\n`;
  const indent = ' '.repeat(head.length);
  return `${wrapWords(line, width - head.length)
    .map((part, i) => `${i === 0 ? head : indent}${part}`)
    .join('\n')}\n`;
}

/** `text` in lines of at most `width` (at least 20), broken at spaces, a longer word cut. */
function wrapWords(text: string, width: number): string[] {
  const room = Math.max(20, width);
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const joined = current === '' ? word : `${current} ${word}`;
    if (joined.length <= room) {
      current = joined;
      continue;
    }
    if (current !== '') lines.push(current);
    current = word;
    while (current.length > room) {
      lines.push(current.slice(0, room));
      current = current.slice(room);
    }
  }
  if (current !== '' || lines.length === 0) lines.push(current);
  return lines;
}

/**
 * The line's time of day, local as the person's clock shows it (`14:03:27 `): a slow phase
 * or a pause reads off the lines. Nothing when the record has none.
 */
function clockTime(time: unknown): string {
  if (typeof time !== 'number') return '';
  const at = new Date(time);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())} `;
}

function fieldText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(fieldText).join('; ');
  if (typeof value === 'object' && value !== null && 'message' in value) return String(value.message);
  // A map (the columns each source lacks): `key: value; …`, not JSON's quotes and braces.
  if (typeof value === 'object' && value !== null)
    return Object.entries(value)
      .map(([key, inner]) => `${key}: ${fieldText(inner)}`)
      .join('; ');
  return JSON.stringify(value);
}

/**
 * A pino destination writing {@link humanLine}s to standard error, synchronously so that
 * lines and the progress bar (also on standard error) do not interleave mid-line.
 */
export const humanStderr = {
  write(line: string): void {
    // On a terminal the progress bar may hold the line (`tty-progress.ts`): clear it first,
    // and the bar is drawn again below at its next tick.
    writeSync(2, `${process.stderr.isTTY ? '\r\u001b[K' : ''}${humanLine(line, terminalWidth())}`);
  },
};

/** Standard error's width on a terminal, else the shell's `COLUMNS` when set (a pipe to less). */
function terminalWidth(): number | undefined {
  const fromEnv = Number(process.env.COLUMNS);
  return process.stderr.columns || (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined);
}

/**
 * Human lines when standard error is a terminal, JSON when it is a file or a pipe (for log
 * collectors), or whenever `EVSYNC_LOG_FORMAT=json` (or `--log-json`) asks for it;
 * `EVSYNC_LOG_FORMAT=text` forces human lines.
 */
export function wantsHumanLogs(env: NodeJS.ProcessEnv = process.env, isTty = process.stderr.isTTY): boolean {
  const format = env.EVSYNC_LOG_FORMAT?.toLowerCase();
  if (format === 'json') return false;
  if (format === 'text') return true;
  return isTty === true;
}
