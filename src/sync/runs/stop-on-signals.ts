/**
 * Ctrl-C and SIGTERM stop a run gracefully: no new work is taken, requests in flight
 * finish and are recorded, the run ends `interrupted`. A second signal quits at once
 * (the ledger still has the plan: `evsync resume` finishes it).
 */
export function stopOnSignals(onFirst: (signal: NodeJS.Signals) => void = () => {}): {
  signal: AbortSignal;
  dispose: () => void;
} {
  const controller = new AbortController();
  const handler = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      process.stderr.write(
        `\nevsync: ${signal} again: quitting now; finish the run later with \`evsync resume\`.\n`,
      );
      process.exit(130);
    }
    onFirst(signal);
    controller.abort(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
