import { readFile } from 'node:fs/promises';
import { CODE } from '../../errors/codes.js';
import { messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';
import { SourceError } from '../source-error.js';

export interface ScheduleInput {
  /** Absolute path of a file, or undefined with `url`. */
  path?: string;
  url?: string;
  /** How it is named in messages. */
  display: string;
}

/**
 * The whole export as text. Schedule exports are small (a conference is thousands of rows,
 * not millions), so they are read at once; a BOM, which Sessionize's real exports start
 * with and JSON.parse refuses, is dropped.
 */
export async function readScheduleText(input: ScheduleInput): Promise<string> {
  const bytes = input.url !== undefined ? await download(input.url, input.display) : await readLocal(input);
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function parseScheduleJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SourceError(
      `${where} is not valid JSON: ${messageOf(error)}: export it again or check the file`,
      {
        code: CODE.SCHEDULE_INVALID_JSON,
      },
    );
  }
}

async function readLocal(input: ScheduleInput): Promise<Buffer> {
  try {
    return await readFile(input.path ?? '');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new SourceError(
      missing
        ? `${input.display} does not exist: check the path (it is relative to the job file)`
        : `cannot read ${input.display}: ${messageOf(error)}`,
      { code: missing ? CODE.SOURCE_FILE_NOT_FOUND : CODE.SOURCE_FILE_UNREADABLE },
    );
  }
}

async function download(url: string, display: string): Promise<Buffer> {
  // Lazy: only a schedule given by URL downloads; undici is not loaded for anything else here.
  const { Agent, interceptors, request } = await import('undici');
  // An agent of our own, closed after the one download: a kept-alive socket would hold the
  // process open, and the global dispatcher may be Node's bundled undici, which the
  // installed undici's interceptors do not speak to.
  const agent = new Agent();
  try {
    const response = await request(url, {
      headers: { accept: 'application/json, application/xml;q=0.9, */*;q=0.5' },
      dispatcher: agent.compose(interceptors.redirect({ maxRedirections: 3 })),
      headersTimeout: 30_000,
      bodyTimeout: 60_000,
    });
    const body = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode >= 400) {
      throw new SourceError(
        `${display} answered HTTP ${response.statusCode}: check the URL and that the export is public`,
        {
          code: CODE.SCHEDULE_HTTP_STATUS,
          retryable: response.statusCode >= 500 || response.statusCode === 429,
        },
      );
    }
    return body;
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(`cannot download ${display}: ${redactUrl(messageOf(error))}`, {
      code: CODE.SCHEDULE_DOWNLOAD_FAILED,
      retryable: true,
    });
  } finally {
    await agent.close();
  }
}
