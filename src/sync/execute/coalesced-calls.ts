interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * One call per item, as the caller sees it; but items that arrive while a call is under
 * way share the next one, so concurrent callers cost one round trip per batch instead of
 * one each, and the first caller of a quiet spell waits for nobody. `callAll` answers
 * each batch with one result per item, in order.
 */
export function coalescedCalls<T, R>(
  callAll: (items: T[]) => Promise<readonly R[]>,
): (item: T) => Promise<R> {
  let waiting: Waiting<T, R>[] = [];
  let calling = false;

  const drain = async (): Promise<void> => {
    calling = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const results = await callAll(batch.map((entry) => entry.item));
        batch.forEach((entry, index) => entry.resolve(results[index] as R));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    calling = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!calling) void drain();
    });
}

/** `coalescedCalls` for durable writes: each caller still waits for its own item to be written. */
export function coalescedWrites<T>(writeAll: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  return coalescedCalls(async (items: T[]) => {
    await writeAll(items);
    return [];
  });
}
