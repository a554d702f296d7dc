import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { stopEmbeddedServer } from '../../src/ledger/embedded-server.js';

/**
 * Deletes a test's folder after stopping the embedded ledger servers of the data folders in
 * it (`<dir>/<data>/postgres`, or `<dir>/postgres`): a server still writing into a folder
 * being deleted makes the deletion fail (ENOTEMPTY) on a loaded machine.
 */
export async function removeWorkspace(dir: string): Promise<void> {
  if (!existsSync(dir)) return;
  const dataDirs = [dir, ...readdirSync(dir).map((name) => join(dir, name))].filter((path) =>
    existsSync(join(path, 'postgres')),
  );
  for (const dataDir of dataDirs) await stopEmbeddedServer(dataDir);
  rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}
