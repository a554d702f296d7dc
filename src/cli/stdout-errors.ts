/** What one command met on standard output: its first write error, if any. */
export interface StdoutWatch {
  /** The first write error on standard output since the command started (EPIPE, ENOSPC…). */
  readonly error: NodeJS.ErrnoException | undefined;
  /** Resolves once a write already made has reported its error, if it fails (a later tick). */
  settled(): Promise<void>;
}

let listening = false;
let first: NodeJS.ErrnoException | undefined;

/**
 * Standard output's write errors (`report > /full/disk`, `validate | head`), for the command
 * about to run. The one place that handles them: `main` decides the exit code from
 * {@link StdoutWatch.error}. Without a listener such an error is an unhandled 'error' event,
 * a stack trace and exit 1; a command that waits for `drain` sees it too.
 *
 * The listeners stay for the life of the process, never removed: a write's error comes on a
 * later tick, and the last writes (commander's help, the `--json` error, a summary) may fail
 * when nothing of the command is left to listen. One listener per stream, however many
 * commands run in the process (tests run many).
 *
 * Standard error gets one too: `evsync … 2>&1 | head` closes it with standard output, and a
 * message that cannot be written can only be dropped; the exit code still says what happened.
 */
export function watchStdout(): StdoutWatch {
  if (!listening) {
    listening = true;
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      first ??= error;
    });
    process.stderr.on('error', () => undefined);
  }
  // A new command: an earlier one's error is not its own.
  first = undefined;
  return {
    get error() {
      return first;
    },
    settled: () => new Promise((resolve) => setImmediate(resolve)),
  };
}
