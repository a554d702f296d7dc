// A process that opens the embedded ledger of DATA_DIR again and again, as short CLI
// commands do (`embedded-join.test.ts`): `node --import tsx ledger-joiner-process.ts DATA_DIR
// ROUNDS`. Each round opens the ledger, reads, locks a job on a connection of its own (as a
// run does), lets go and closes, then pauses about as long as the server's idle time, so
// that the keeper's stop and the next join meet. It prints one JSON line of what happened.
import { openLedger } from '../../src/ledger/open-ledger.js';

const [dataDir, rounds] = process.argv.slice(2);
if (dataDir === undefined || rounds === undefined) throw new Error('usage: DATA_DIR ROUNDS');

const failures: string[] = [];
let slowestMs = 0;
for (let round = 0; round < Number(rounds); round += 1) {
  const started = Date.now();
  try {
    const ledger = await openLedger({ dataDir, databaseUrl: '' });
    await ledger.listRuns(1);
    const lock = await ledger.lockJob(`joiner-${process.pid}`);
    await lock.release();
    await ledger.close();
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  }
  slowestMs = Math.max(slowestMs, Date.now() - started);
  await new Promise((resolve) => setTimeout(resolve, 700 + Math.random() * 700));
}
process.stdout.write(`${JSON.stringify({ failures, slowestMs })}\n`);
