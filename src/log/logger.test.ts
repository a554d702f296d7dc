import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.js';

function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it('keeps the host of a logged URL and hides its password and secret query params', async () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info' }, stream);
    logger.info({ url: 'https://u:pw@host/sz.json?token=S3cretTok&lang=en' }, 'download');
    await new Promise((resolve) => setImmediate(resolve));
    const line = lines.join('');
    expect(line).toContain('https://u:[redacted]@host/sz.json?token=[redacted]&lang=en');
    expect(line).not.toContain('S3cretTok');
    expect(line).not.toContain(':pw@');
  });
});
