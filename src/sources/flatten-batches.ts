/**
 * Items of an async source of batches, one at a time. An async generator that yields each
 * item costs a generator resumption and a promise per item, about 2.5× the iteration cost
 * measured here for a million rows; this hands out buffered items with one resolved promise
 * each and only awaits the source between batches. Leaving early (`break`) closes the
 * source, so its `finally` blocks (closing files and connections) still run.
 */
export function flattenBatches<T>(batches: AsyncGenerator<readonly T[]>): AsyncIterableIterator<T> {
  let buffer: readonly T[] = [];
  let index = 0;
  let done = false;
  const iterator: AsyncIterableIterator<T> = {
    [Symbol.asyncIterator]: () => iterator,
    async next(): Promise<IteratorResult<T>> {
      while (index >= buffer.length) {
        if (done) return { value: undefined, done: true };
        const batch = await batches.next();
        if (batch.done === true) {
          done = true;
          return { value: undefined, done: true };
        }
        buffer = batch.value;
        index = 0;
      }
      return { value: buffer[index++]!, done: false };
    },
    async return(): Promise<IteratorResult<T>> {
      done = true;
      buffer = [];
      await batches.return(undefined);
      return { value: undefined, done: true };
    },
  };
  return iterator;
}
