import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCsvSource } from '../../sources/csv/csv-source.js';
import { RowProgress } from './row-progress.js';

/** A stream that is not a terminal: the display draws nothing by itself. */
const quiet = { isTTY: false, write: () => true } as unknown as NodeJS.WriteStream;

describe('validate progress', () => {
  it('shows a bar with the share read and an ETA when the source knows its size', () => {
    const progress = new RowProgress(quiet);
    const started = performance.now();
    progress.step('users ← CSV file people.csv', () => ({ done: 250, total: 1000 }));
    for (let i = 0; i < 500; i++) progress.tick();
    const line = progress.line(started + 2000);
    expect(line).toMatch(
      /^\[######------------------\] 25% users ← CSV file people\.csv: 500 rows \(2\d\d rows\/s\), ETA 0:0[56]$/,
    );
  });

  it('counts rows with a spinner when the size is unknown (a database query)', () => {
    const progress = new RowProgress(quiet);
    progress.step('users ← PostgreSQL "select …"');
    progress.tick();
    expect(progress.line()).toMatch(/^[|/\-\\] users ← PostgreSQL "select …": 1 rows \(/);
  });

  it('a CSV source reports the bytes it has read of its file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'evsync-progress-'));
    const path = join(dir, 'people.csv');
    const text = `client_id,email\n${Array.from({ length: 5000 }, (_, i) => `u${i},u${i}@x.org`).join('\n')}\n`;
    writeFileSync(path, text);
    const source = createCsvSource({ path });
    expect(source.progress?.()).toBeUndefined();
    const seen: number[] = [];
    for await (const _item of source.rows()) seen.push(source.progress?.()?.done ?? -1);
    expect(source.progress?.()).toEqual({ done: Buffer.byteLength(text), total: Buffer.byteLength(text) });
    expect(Math.min(...seen)).toBeGreaterThan(0);
  });
});
