import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../log/logger.js';
import { LogProgress } from './log-progress.js';
import { TtyProgress } from './tty-progress.js';

/** A terminal stand-in: what was drawn, the latest line last. */
function terminal(): { stream: NodeJS.WriteStream; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { columns: 200 });
  return {
    stream,
    lines: () =>
      text
        .replaceAll('\u001b[K', '')
        .split(/\r|\n/)
        .filter((line) => line !== ''),
  };
}

/** The bar redraws every 100 ms. */
const redrawn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));

describe('progress while a streamed plan is still reading its sources', () => {
  it('the bar shows the total as a floor and no ETA until the sources are read', async () => {
    const { stream, lines } = terminal();
    const progress = new TtyProgress(stream);
    progress.phaseStarted('users', 100, true);
    for (let i = 0; i < 50; i += 1) progress.advanced('users', 'created');
    progress.phaseGrew('users', 200, true);
    await redrawn();
    expect(lines().at(-1)).toMatch(
      /^users +\[reading the sources +\] 50\/200\+ +\d+\/s +ETA when the sources are read/,
    );
    progress.phaseGrew('users', 300, false);
    await redrawn();
    expect(lines().at(-1)).toMatch(/\[#{4}\.{20}\] 50\/300 +\d+\/s +ETA \d+s$/);
    progress.close();
  });

  it('log lines carry etaSeconds -1 and reading: true until the total is final', async () => {
    const records: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        records.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const progress = new LogProgress(createLogger({ level: 'info' }, sink), 0);
    progress.phaseStarted('users', 10, true);
    // No total while the sources are read: the rows read so far are not one.
    expect(records.at(-1)).toMatchObject({ phase: 'users', reading: true });
    expect(records.at(-1)?.total).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 2));
    progress.advanced('users', 'created');
    expect(records.at(-1)).toMatchObject({
      msg: 'progress',
      done: 1,
      total: 10,
      etaSeconds: -1,
      reading: true,
    });
    progress.phaseGrew('users', 20, false);
    expect(records.at(-1)).toMatchObject({ msg: 'phase total known', phase: 'users', total: 20 });
    progress.advanced('users', 'created');
    expect(records.at(-1)).toMatchObject({ msg: 'progress', done: 2, total: 20 });
    expect(records.at(-1)?.reading).toBeUndefined();
    expect(records.at(-1)?.etaSeconds).toBeGreaterThanOrEqual(0);
  });
});
