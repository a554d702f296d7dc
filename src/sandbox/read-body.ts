import type { IncomingMessage } from 'node:http';
import { SandboxHttpError } from './sandbox-http-error.js';

/**
 * Reads a request body up to `maxBytes`. A larger one is drained (so the caller can read
 * our 413 instead of a broken pipe) and refused; past 64× the cap the socket is cut.
 */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<string> {
  const declared = Number(request.headers['content-length'] ?? '0');
  if (!hasBody(request)) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = declared > maxBytes;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      if (tooLarge) {
        chunks.length = 0;
        if (size > maxBytes * 64) request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (tooLarge) reject(tooLargeError(maxBytes));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    request.on('error', reject);
  });
}

function tooLargeError(maxBytes: number): SandboxHttpError {
  return new SandboxHttpError(413, `The request body is larger than ${maxBytes} bytes.`, {
    headers: { connection: 'close' },
  });
}

/**
 * Whether the request announces a body. Without one the caller can answer in the same
 * tick as the request event (no `await`), which halves the cost of a GET under load.
 */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}
