import { existsSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { messageOf } from '../../errors/evsync-error.js';
import { loadJobFile, type LoadedJob } from '../../sync/job-file.js';
import { checksVerdict, type CheckResult, formatChecks } from '../doctor/doctor-check.js';
import {
  distributedChecks,
  envFileCheck,
  ledgerChecks,
  nodeCheck,
  platformCheck,
} from '../doctor/environment-checks.js';
import { SOURCE_CHECK_SECONDS, sourceChecks } from '../doctor/source-checks.js';
import { notifyChecks } from '../doctor/notify-checks.js';
import { EXIT, userFileError } from '../exit-codes.js';

function positiveSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new InvalidArgumentError('give a number of seconds above 0');
  return seconds;
}

/** The job file `evsync init` writes: what doctor checks when given none. */
const DEFAULT_JOB = 'job.yaml';

export function registerDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check that everything a run needs is in place, one line each with the fix: Node.js, the platform and your key, the ledger, Redis and workers (with REDIS_URL), every source of the job, and its notify: channels.',
    )
    .argument('[job]', `the job file whose sources to check (default: ${DEFAULT_JOB} when there is one)`)
    .option('--json', 'print the checks as JSON')
    .option(
      '--source-timeout <seconds>',
      `how long each step's source may take to answer; its query is cancelled then (default: ${SOURCE_CHECK_SECONDS})`,
      positiveSeconds,
    )
    .action(async (jobPath: string | undefined, options: { json?: boolean; sourceTimeout?: number }) => {
      const path = jobPath ?? (existsSync(DEFAULT_JOB) ? DEFAULT_JOB : undefined);
      const results: CheckResult[] = [nodeCheck(), envFileCheck()];
      let job: LoadedJob | undefined;
      if (path !== undefined) {
        try {
          job = loadJobFile(path);
          results.push({
            check: 'job',
            status: 'ok',
            message: `${path}: ${job.name}, ${job.steps.length} step(s)`,
          });
        } catch (error) {
          results.push({
            check: 'job',
            status: 'fail',
            message: messageOf(userFileError(error, [path]) ?? error),
            fix: 'fix the job file as the message says (evsync init writes one to start from)',
          });
        }
      }
      results.push(await platformCheck(job));
      results.push(...(await ledgerChecks(job)));
      results.push(...(await distributedChecks(job)));
      if (job) results.push(...(await sourceChecks(job, options.sourceTimeout)));
      if (job) results.push(...(await notifyChecks(job)));
      if (options.json === true) process.stdout.write(`${JSON.stringify({ checks: results })}\n`);
      else process.stdout.write(`${formatChecks(results)}\n${checksVerdict(results)}`);
      // A failed check is a configuration problem: nothing a run needs should be left to chance.
      process.exitCode = results.some((r) => r.status === 'fail') ? EXIT.usage : EXIT.ok;
    });
}
