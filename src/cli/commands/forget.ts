import type { Command } from 'commander';
import { z } from 'zod';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { platformConfigFor } from '../../config/conference.js';
import { distributedConfigFromEnv } from '../../distributed/distributed-config.js';
import { rootLogger } from '../../log/logger.js';
import { PlatformClient } from '../../platform/platform-client.js';
import { conferenceHost } from '../../model/conference.js';
import {
  erasedBy,
  forgetOutcomeJson,
  forgetPerson,
  liftErasure,
  type ForgetOutcome,
} from '../../sync/erasure/forget-person.js';
import { loadJobFile } from '../../sync/job-file.js';
import { openEngine } from '../../sync/runs/open-engine.js';

const optionsSchema = z
  .object({
    email: z.array(z.string().trim().min(1)).optional(),
    clientId: z.array(z.string().trim().min(1)).optional(),
    job: z.string().min(1).optional(),
    reason: z.string().trim().min(1).max(500).optional(),
    dryRun: z.boolean().optional(),
    undo: z.boolean().optional(),
    json: z.boolean().optional(),
  })
  .refine((o) => (o.email?.length ?? 0) + (o.clientId?.length ?? 0) > 0, {
    message: 'name the person: --email E or --client-id ID (several may be given)',
  })
  .refine((o) => !(o.undo && o.dryRun), { message: '--undo and --dry-run do not go together' });

/** A platform call takes its turn in the job's rate; a forget makes a handful. */
const RATE = { per_second: 5, concurrency: 1 };

export function registerForgetCommand(program: Command): void {
  program
    .command('forget')
    .description(
      'Erase a person from a conference (GDPR Art. 17): remove their platform user, replace every trace in the ledger with markers, and record a tombstone so that later runs never bring them back.',
    )
    .option('--email <email...>', "the person's e-mail (any of them)")
    .option('--client-id <id...>', "the person's client_id (any of them: a merged person is found by each)")
    .option(
      '--job <file>',
      "the job whose conference to erase them from (its platform:); else EVSYNC_BASE_URL's",
    )
    .option('--reason <text>', 'why, kept with the tombstone (no personal data: e.g. "request 2026-114")')
    .option('--dry-run', 'say what would be removed and replaced, remove nothing')
    .option('--undo', 'lift the tombstone of this e-mail or client_id: the person comes back on the next run')
    .option('--json', 'print the outcome as one JSON object')
    .action(async (raw: Record<string, unknown>) => {
      const parsed = optionsSchema.safeParse(raw);
      if (!parsed.success)
        throw new ConfigError(parsed.error.issues.map((issue) => issue.message).join('\n'), {
          code: CODE.EVSYNC_USAGE,
        });
      const options = parsed.data;
      const job = options.job === undefined ? undefined : loadJobFile(options.job);
      const logger = rootLogger().child({ command: 'forget' });
      const rate = job?.rate ?? RATE;
      const platform = PlatformClient.fromConfig(platformConfigFor(job?.platform), {
        rateLimit: { requestsPerSecond: rate.per_second, concurrency: rate.concurrency },
        logger,
      });
      const engine = await openEngine({ rate, logger, client: platform }).catch(async (error: unknown) => {
        await platform.close();
        throw error;
      });
      try {
        const { ledger } = engine.deps;
        const conference = ledger.conference ? conferenceHost(ledger.conference.baseUrl) : 'the ledger';
        const by = erasedBy();
        const who = { emails: options.email ?? [], clientIds: options.clientId ?? [] };
        if (options.undo) {
          const lifted = await liftErasure({ ledger }, { ...who, by });
          process.stdout.write(
            options.json
              ? `${JSON.stringify({ conference, lifted: lifted.map((t) => t.id) })}\n`
              : lifted.length === 0
                ? `No erasure of that person in ${conference}: nothing to lift.\n`
                : `Lifted ${lifted.length} erasure(s) in ${conference} (tombstone ${lifted.map((t) => `#${t.id}`).join(', ')}): the person is sent again by the next run that reads them.\n`,
          );
          return;
        }
        const outcome = await forgetPerson(
          { ledger, platform },
          { ...who, reason: options.reason, by, dryRun: options.dryRun === true },
        );
        // Distributed mode: the queue keeps finished jobs a while, each naming its intent's key.
        const distributed = distributedConfigFromEnv();
        const jobs =
          distributed === undefined || outcome.dryRun
            ? undefined
            : await (
                await import('../../distributed/erase-intent-jobs.js')
              ).eraseIntentJobs(distributed, outcome.namesKey);
        process.stdout.write(
          options.json
            ? `${JSON.stringify({ conference, ...forgetOutcomeJson(outcome), ...(jobs ? { redisJobs: jobs } : {}) })}\n`
            : describe(outcome, conference) +
                (jobs
                  ? `  Redis: removed ${jobs.removed} queued or finished job(s) naming them${jobs.active > 0 ? `; ${jobs.active} being sent now, left to finish: run forget again after the run` : ''}.\n`
                  : ''),
        );
      } finally {
        await engine.close();
        await platform.close();
      }
    });
}

/** What was (or would be) removed, in counts: the person's data is never printed. */
function describe(outcome: ForgetOutcome, conference: string): string {
  const would = outcome.dryRun;
  const s = outcome.scrubbed;
  const lines = [
    `${would ? 'Dry run: would forget' : 'Forgot'} a person in ${conference}.`,
    `  Found in the ledger: ${outcome.found.clientIds} client_id(s), ${outcome.found.emails} e-mail(s).`,
    ...(outcome.found.otherPeople > 0
      ? [
          `  Another person: rows of ${outcome.found.otherPeople} other person(s) use a client_id of this person's (a ticket handed on, a key reused). ` +
            `They are not this person, and ${would ? 'would be' : 'were'} left as they are, with the account their key names: ` +
            'if they asked to be erased too, forget them by their own e-mail.',
        ]
      : []),
    outcome.platformRemoved.length > 0
      ? `  Platform: ${would ? 'would remove' : 'removed'} user ${outcome.platformRemoved.join(', ')} from the conference (DELETE /user/member/{id}), and with it, as the platform does, their speaker links, schedule and contacts.`
      : '  Platform: no user of that e-mail or id in this conference.',
    ...(outcome.platformGone.length > 0
      ? [`  Platform: user ${outcome.platformGone.join(', ')} was already gone.`]
      : []),
    `  Ledger: ${would ? 'would replace' : 'replaced'} with markers ${s.planned_rows ?? 0} planned row(s), ${s.results ?? 0} result(s), ` +
      `${s.unchanged_lists ?? 0} list(s) of unchanged keys, and ${s.quoted_elsewhere ?? 0} other row(s) quoting them; ` +
      `${would ? 'would drop' : 'dropped'} ${s.synced_state ?? 0} synced key(s) and ${s.platform_ids ?? 0} platform id(s).`,
    ...(nothingFound(outcome)
      ? [
          '  Nothing of this person was in the ledger or on the platform: check the e-mail or client_id you typed. ' +
            `The tombstone still keeps later runs from sending a row naming ${outcome.found.clientIds + outcome.found.emails === 1 ? 'it' : 'them'}; ` +
            'if it was a typo, lift it with `evsync forget --undo` and the same identifier.',
        ]
      : []),
    outcome.tombstone
      ? `  Tombstone #${outcome.tombstone.id}: ${outcome.tombstone.identifiers} identifier(s), hashed. Later runs suppress every row naming them; \`evsync forget --undo\` lifts it.`
      : '  No tombstone recorded (dry run).',
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Whether the erasure found nothing beyond what was typed: no platform user, and no row of
 * the ledger replaced or dropped. Right for someone never synced (the tombstone keeps them
 * out), and what a typo in the identifier looks like, so it is said.
 */
function nothingFound(outcome: ForgetOutcome): boolean {
  if (outcome.platformRemoved.length > 0 || outcome.platformGone.length > 0) return false;
  return Object.values(outcome.scrubbed).every((count) => (count ?? 0) === 0);
}
