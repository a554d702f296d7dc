import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { parseCsvChunks } from './parse-csv-chunks.js';

describe('parseCsvChunks', () => {
  it('stops pulling text while the reader does not ask for more (backpressure)', async () => {
    let produced = 0;
    const text = Readable.from(
      (function* () {
        yield 'a,b\n';
        for (let i = 0; i < 10_000; i++) {
          produced++;
          yield `${i},${'x'.repeat(1000)}\n`;
        }
      })(),
      { objectMode: true, highWaterMark: 4 },
    );
    const chunks = parseCsvChunks(text, ',');
    const first = await chunks.next();
    expect(first.done).toBe(false);
    await sleep(50);
    // A few chunks in flight at most, not the 10,000 the source could give.
    expect(produced).toBeLessThan(50);
    let rows = first.value!.rows.length;
    for await (const chunk of chunks) rows += chunk.rows.length;
    expect(produced).toBe(10_000);
    expect(rows).toBeGreaterThanOrEqual(10_001);
  });

  it('stops the parser and the stream when the reader leaves early', async () => {
    const text = Readable.from(
      Array.from({ length: 1000 }, (_, i) => `${i},y\n`),
      { objectMode: true },
    );
    for await (const _chunk of parseCsvChunks(text, ',')) break;
    await sleep(10);
    expect(text.destroyed).toBe(true);
  });

  it('passes a stream error to the reader', async () => {
    const text = new Readable({ objectMode: true, read() {} });
    text.push('a,b\n1,2\n');
    setTimeout(() => text.destroy(new Error('disk gone')), 10);
    await expect(
      (async () => {
        for await (const _chunk of parseCsvChunks(text, ',')) {
          /* drain */
        }
      })(),
    ).rejects.toThrow('disk gone');
  });

  it('ends the last record at a line break of another kind than the rest of the file', async () => {
    const rows = async (text: string): Promise<unknown[]> => {
      const out: unknown[] = [];
      for await (const chunk of parseCsvChunks(Readable.from([text], { objectMode: true }), ',')) {
        expect(chunk.errors).toEqual([]);
        out.push(...chunk.rows);
      }
      return out;
    };
    const expected = [
      ['a', 'b'],
      ['1', 'x'],
      ['2', 'y'],
    ];
    expect(await rows('a,b\r\n1,"x"\r\n2,"y"\n')).toEqual(expected);
    expect(await rows('a,b\r\n1,x\r\n2,y\n')).toEqual(expected);
    expect(await rows('a,b\n1,"x"\n2,"y"\r\n')).toEqual(expected);
    expect(await rows('a,b\r\n1,"x"\r\n2,"y"\r\n')).toEqual(expected);
  });

  it('reads on after text after a closing quote, wherever the pieces of text split', async () => {
    const input = 'a,b\n"x\n1"y,2\n"q ""r""",3\nz,"w"\n"u"v\n"t"';
    const parse = async (pieces: string[]): Promise<unknown[]> => {
      const out: unknown[] = [];
      for await (const chunk of parseCsvChunks(Readable.from(pieces, { objectMode: true }), ',')) {
        const bad = new Set(chunk.errors.map((error) => error.row));
        chunk.rows.forEach((row, index) => out.push(bad.has(index) ? ['bad', ...row] : row));
      }
      return out;
    };
    const whole = await parse([input]);
    expect(whole).toEqual([
      ['a', 'b'],
      ['bad', 'x\n1y', '2'],
      ['q "r"', '3'],
      ['z', 'w'],
      ['bad', 'uv'],
      ['t'],
    ]);
    for (let at = 1; at < input.length; at++) {
      expect(await parse([input.slice(0, at), input.slice(at)]), `split at ${at}`).toEqual(whole);
    }
  });
});
