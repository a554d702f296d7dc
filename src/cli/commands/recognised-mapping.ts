import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { vendorFromEnv } from '../../config/env-config.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';
import { exportMappingNames, recogniseExport } from '../../mapping/recognise-export.js';
import { createCsvSource } from '../../sources/csv/csv-source.js';

/**
 * `--source F` without `--mapping`: the shipped mapping whose `detect:` columns the CSV's
 * header has, said on standard error so that the summary stays as it is. A file no shipped
 * mapping recognises needs `--mapping`, and the message lists the choices.
 */
export async function recognisedMapping(source: string, format: string | undefined): Promise<string> {
  const extension = extname(source).toLowerCase();
  if (
    !/^https?:\/\//i.test(source) &&
    (format === 'pretix_json' || (format === undefined && extension === '.json')) &&
    (await isPretixOrderExport(source))
  ) {
    process.stderr.write(
      `evsync: ${source} is pretix's order data export (JSON): using --mapping pretix-orders; give --mapping to choose another.\n`,
    );
    return 'pretix-orders';
  }
  if (
    /^https?:\/\//i.test(source) ||
    (format !== undefined && format !== 'csv') ||
    extension === '.json' ||
    extension === '.xml'
  ) {
    throw new ConfigError(
      `Give --mapping for ${redactUrl(source)}: only a CSV export is recognised by its header (e.g. --mapping pretalx)`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  if (statSync(source, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(`${source} is a directory, not a file: give the CSV file's path`, {
      code: CODE.EVSYNC_USAGE,
    });
  }
  if (!existsSync(source)) {
    throw new ConfigError(
      `${source} does not exist: give the CSV file's path, with --mapping NAME (or without it for a known tool's export)`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  const header = await csvHeader(source);
  const found = await recogniseExport(header, vendorFromEnv());
  const [best] = found;
  if (best === undefined) {
    throw new ConfigError(
      `${source}: its header is not one of the exports evsync knows (${(await exportMappingNames(vendorFromEnv())).join(', ')}): give --mapping, e.g. --mapping users for a file with the generic columns, or a mapping file of your own`,
      { code: CODE.EVSYNC_USAGE },
    );
  }
  const also =
    found.length > 1
      ? ` (it also fits ${found
          .slice(1)
          .map((f) => f.mapping)
          .join(', ')})`
      : '';
  process.stderr.write(
    `evsync: ${source} has the columns of the ${best.mapping} mapping's export (${(best.description ?? best.mapping).replace(/\.$/, '')}): using --mapping ${best.mapping}${also}; give --mapping to choose another.\n`,
  );
  return best.mapping;
}

/** Whether a JSON file has the shape of pretix's "Order data (JSON)" export (`event.orders`, `event.items`). */
async function isPretixOrderExport(path: string): Promise<boolean> {
  try {
    const json = JSON.parse((await readFile(path, 'utf8')).replace(/^\uFEFF/, '')) as {
      event?: { orders?: unknown; items?: unknown };
    };
    return Array.isArray(json.event?.orders) && Array.isArray(json.event?.items);
  } catch {
    // Not readable, or not JSON: the message below says what to give instead.
    return false;
  }
}

/** The header of a CSV file: the columns of its first row (a header-only file has none to read). */
async function csvHeader(path: string): Promise<string[]> {
  const rows = createCsvSource({ path }).rows()[Symbol.asyncIterator]();
  try {
    for (let next = await rows.next(); next.done !== true; next = await rows.next())
      if (next.value.ok) return Object.keys(next.value.values);
  } finally {
    await rows.return?.();
  }
  throw new ConfigError(`${path} has no rows to recognise its columns by: give --mapping`, {
    code: CODE.EVSYNC_USAGE,
  });
}
