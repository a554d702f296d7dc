import type { ResultWriter } from '../../src/ledger/result-writer.js';
import type { IntentResultInput } from '../../src/model/result-records.js';

/** A result writer that keeps what it is given, for tests of the engine without a ledger. */
export function memoryWriter(): ResultWriter & { results: IntentResultInput[] } {
  const results: IntentResultInput[] = [];
  return {
    results,
    write: (result) => {
      results.push(result);
      return Promise.resolve();
    },
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    buffered: 0,
    get written() {
      return results.length;
    },
  };
}
