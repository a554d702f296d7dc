import { inJobTerms, platformRefOfRun } from '../../config/conference.js';
import { isEvsyncError, messageOf } from '../../errors/evsync-error.js';
import type { Ledger } from '../../ledger/ledger.js';
import { redactUrl } from '../../log/redaction.js';
import { RunAbortedError } from '../runs/run-aborted-error.js';

/**
 * A run that broke while it was sent (a source query refused at a later fetch, the ledger
 * gone): it ends `aborted`, not `running` for ever, with its reason, the code of its cause
 * (`abortCode`) and what to do next (`nextStep`) in its options: what `runs`, `status`, the
 * dashboard and its notice say. The error returned says the same to the CLI (exit 3).
 */
export async function abortOnFailure(
  ledger: Pick<Ledger, 'getRun' | 'mergeRunOptions' | 'finishRun'>,
  runId: string,
  error: unknown,
): Promise<RunAbortedError> {
  const reason = redactUrl(messageOf(error));
  const run = await ledger.getRun(runId).catch(() => undefined);
  const { file, planned } = run?.options ?? {};
  // A plan cut short (its sources not read to the end): a resume sends only what was planned.
  const nextStep =
    typeof planned !== 'number' && typeof file === 'string'
      ? `Fix the cause, then run the job again (\`evsync run ${file}\`): it sends the rest, and nothing twice.`
      : `Fix the cause, then finish it with \`evsync resume ${runId}\`.`;
  await ledger
    .mergeRunOptions(runId, {
      aborted: reason,
      ...(isEvsyncError(error) ? { abortCode: error.code } : {}),
      nextStep,
    })
    .catch(() => {});
  await ledger.finishRun(runId, 'aborted').catch(() => {});
  return new RunAbortedError(runId, reason, { cause: error, nextStep });
}

/**
 * Keeps why a run stopped with it (`aborted`: what its notice, `runs` and the dashboard say),
 * said in its job's terms (`inJobTerms`: the variables its job reads); answers the words kept.
 */
export async function keepAbortReason(
  ledger: Pick<Ledger, 'getRun' | 'mergeRunOptions'>,
  runId: string,
  reason: string,
): Promise<string> {
  const run = await ledger.getRun(runId);
  const file = typeof run?.options.file === 'string' ? run.options.file : undefined;
  const said = run === undefined ? reason : inJobTerms(reason, platformRefOfRun(run), file);
  await ledger.mergeRunOptions(runId, { aborted: redactUrl(said) });
  return said;
}
