import { existsSync } from 'node:fs';
import { platformConfigFor } from '../../config/conference.js';
import { messageOf } from '../../errors/evsync-error.js';
import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import { connectRedis } from '../../distributed/open-distributed.js';
import { Schedules } from '../../distributed/schedules.js';
import { LedgerBusyError } from '../../ledger/ledger-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { redactUrl } from '../../log/redaction.js';
import type { LoadedJob } from '../../sync/job-file.js';
import { keyShapeHint, testSignature } from '../commands/ping.js';
import { packageManifest } from '../commands/version.js';
import type { CheckResult } from './doctor-check.js';
import { laneCheck } from './lane-check.js';

/** The running Node.js against the version `engines` names. */
export function nodeCheck(running = process.versions.node): CheckResult {
  const wanted = packageManifest().engines?.node ?? '';
  const minimum = /(\d+)\.(\d+)\.(\d+)/.exec(wanted)?.slice(1).map(Number);
  const have = running.split('.').map(Number);
  const enough =
    minimum === undefined ||
    have[0]! > minimum[0]! ||
    (have[0] === minimum[0] &&
      (have[1]! > minimum[1]! || (have[1] === minimum[1] && have[2]! >= minimum[2]!)));
  return enough
    ? { check: 'node', status: 'ok', message: `Node.js ${running} (evsync needs ${wanted})` }
    : {
        check: 'node',
        status: 'fail',
        message: `Node.js ${running} is older than evsync needs (${wanted})`,
        fix: 'install a newer Node.js (https://nodejs.org, or nvm install 20)',
      };
}

/** Whether `.env` is where evsync reads it: the folder a command runs in. */
export function envFileCheck(cwd = process.cwd()): CheckResult {
  return existsSync('.env')
    ? { check: '.env', status: 'ok', message: `${cwd}/.env is read` }
    : {
        check: '.env',
        status: 'warn',
        message: `no .env in ${cwd}: only the environment's variables are read`,
        fix: 'run evsync in the folder that holds .env (evsync init writes one), or export the variables',
      };
}

/** The platform's settings, then one signed `/signature_test`, as `evsync ping` does. */
export async function platformCheck(job: LoadedJob | undefined): Promise<CheckResult> {
  const check = 'platform';
  let config;
  try {
    config = platformConfigFor(job?.platform);
  } catch (error) {
    return {
      check,
      status: 'fail',
      message: messageOf(error),
      fix: 'fill in the conference URL and your key in .env (a sandbox prints them: evsync sandbox --port 8080)',
    };
  }
  try {
    const { result, ms, expected } = await testSignature(config);
    if (result.valid === true)
      return {
        check,
        status: 'ok',
        message: `${config.baseUrl} accepts the signature of key_id ${config.keyId} (${ms} ms)`,
      };
    if (result.valid === undefined)
      return {
        check,
        status: 'warn',
        message: `${config.baseUrl} answered ${result.status} to /signature_test but gave no verdict`,
        fix: 'check that the base URL is the conference’s (evsync ping shows the answer)',
      };
    return {
      check,
      status: 'fail',
      message:
        `${config.baseUrl} rejected the signature of key_id ${config.keyId}${result.problem ? `: ${result.problem}` : ''}` +
        `${expected ? ` (it hashed ${JSON.stringify(expected)})` : ''}`,
      fix:
        `check the key id and signing key${keyShapeHint(process.env.EVSYNC_SIGNING_KEY).replace(/^\n\s*/, ': ')}` +
        '; evsync sign shows what evsync hashes',
    };
  } catch (error) {
    return {
      check,
      status: 'fail',
      message: `${config.baseUrl} cannot be reached: ${messageOf(error)}`,
      fix: 'check the base URL and the network (is the sandbox running?)',
    };
  }
}

/**
 * The ledger opens and its schema is current; the job's lock is free; and a run that was cut off is named, with how to finish it.
 */
export async function ledgerChecks(job: LoadedJob | undefined): Promise<CheckResult[]> {
  let ledger;
  try {
    ledger = await openLedger();
  } catch (error) {
    return [
      {
        check: 'ledger',
        status: 'fail',
        message: messageOf(error),
        fix: 'check DATABASE_URL, or unset it for the embedded ledger in EVSYNC_DATA_DIR (./.evsync)',
      },
    ];
  }
  try {
    const results: CheckResult[] = [
      { check: 'ledger', status: 'ok', message: `${ledger.description}: opens, schema current` },
    ];
    const running = await ledger.listRuns(20, {
      statuses: ['running'],
      ...(job ? { jobName: job.name } : {}),
    });
    for (const run of running) {
      results.push(
        (await ledger.processGone(run))
          ? {
              check: 'ledger',
              status: 'warn',
              message: `run ${run.id} of ${run.jobName} was cut off before it ended`,
              fix: `finish it: evsync resume ${run.id}`,
            }
          : { check: 'ledger', status: 'ok', message: `run ${run.id} of ${run.jobName} is going on now` },
      );
    }
    if (job) results.push(await jobLockCheck(ledger, job.name));
    return results;
  } finally {
    await ledger.close();
  }
}

async function jobLockCheck(
  ledger: Awaited<ReturnType<typeof openLedger>>,
  jobName: string,
): Promise<CheckResult> {
  try {
    const lock = await ledger.lockJob(jobName);
    await lock.release();
    return { check: 'job lock', status: 'ok', message: `no run of ${jobName} holds it` };
  } catch (error) {
    if (!(error instanceof LedgerBusyError)) throw error;
    return {
      check: 'job lock',
      status: 'warn',
      message: messageOf(error),
      fix: 'a run now waits for it or stops: let that run end (or `evsync run --wait`)',
    };
  }
}

/**
 * With `REDIS_URL`: Redis answers, workers are connected, one of them holds the job's key
 * (`laneCheck`), and no schedule waits for a worker that is not there. Without it, nothing to
 * check.
 */
export async function distributedChecks(
  job?: LoadedJob,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CheckResult[]> {
  let config;
  try {
    config = distributedConfigFromEnv(env);
  } catch (error) {
    return [
      {
        check: 'redis',
        status: 'fail',
        message: messageOf(error),
        fix: 'set REDIS_URL and DATABASE_URL together',
      },
    ];
  }
  if (config === undefined) return [];
  let redis;
  try {
    redis = await connectRedis(config, 'client');
  } catch (error) {
    return [
      {
        check: 'redis',
        status: 'fail',
        message: messageOf(error),
        fix: 'start Redis or fix REDIS_URL; unset it to run in one process',
      },
    ];
  }
  const schedules = new Schedules(redis, config.prefix);
  try {
    const [workers, registered] = await Promise.all([schedules.workers(), schedules.list()]);
    const results: CheckResult[] = [
      {
        check: 'redis',
        status: 'ok',
        message: `${redactUrl(config.redisUrl)} answers (queue prefix ${config.prefix})`,
      },
      workers > 0
        ? { check: 'workers', status: 'ok', message: `${workers} evsync worker(s) connected` }
        : {
            check: 'workers',
            status: registered.length > 0 ? 'fail' : 'warn',
            message:
              registered.length > 0
                ? `no evsync worker is connected, and ${registered.length} schedule(s) wait for one (${registered.map((s) => s.name).join(', ')}): they will not fire`
                : 'no evsync worker is connected: a run waits for one',
            fix: 'start one with the same REDIS_URL and DATABASE_URL: evsync worker',
          },
    ];
    const lane = await laneCheck({ redis, prefix: config.prefix, job, workers, env });
    if (lane !== undefined) results.push(lane);
    return results;
  } finally {
    await schedules.close();
    redis.disconnect();
  }
}
