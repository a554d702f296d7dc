interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * One durable write per call, as the caller sees it; but calls that arrive while a write
 * is under way share the next one, so concurrent callers cost one round trip per batch
 * instead of one each, and each still waits for its own item to be written.
 */
export function coalescedWrites<T>(writeAll: (items: T[]) => Promise<void>): (item: T) => Promise<void> {
  let waiting: Waiting<T>[] = [];
  let writing = false;

  const drain = async (): Promise<void> => {
    writing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await writeAll(batch.map((entry) => entry.item));
        for (const entry of batch) entry.resolve();
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
