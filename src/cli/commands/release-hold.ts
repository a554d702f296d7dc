import type { Command } from 'commander';
import { namesConference } from '../../config/conference.js';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import { openLedger } from '../../ledger/open-ledger.js';
import { rootLogger } from '../../log/logger.js';
import { conferenceHost } from '../../model/conference.js';
import { erasedBy } from '../../sync/erasure/forget-person.js';
import { everyHold } from '../../sync/phases/key-holds.js';

/**
 * `evsync release-hold CLIENT_ID`: an operator lets go a key held as now another person
 * (docs/sync-engine.md, "Who is who"), when no run will: the refusing job no longer has the
 * row (a refund, a renamed job), or the registration system keeps the key on its new holder.
 * From then on every job sends the key's links to the account it maps to.
 */
export function registerReleaseHoldCommand(program: Command): void {
  program
    .command('release-hold')
    .description(
      'Let go a user key held because a run refused its row as now another person: every job then sends its links, schedules and check-ins to the account it maps to. See held keys with `evsync status`.',
    )
    .argument('<client_id...>', 'the held client_id(s)')
    .option(
      '--conference <host>',
      'the conference (its host, as `evsync status` shows it, or its base URL), when several hold the key',
    )
    .action(async (keys: string[], options: { conference?: string }) => {
      const ledger = await openLedger();
      try {
        const held = (await everyHold(ledger)).filter(
          ({ conference, hold }) =>
            // However it is written: EVSYNC_BASE_URL's value, or the host `status` shows.
            (options.conference === undefined || namesConference(options.conference, conference.baseUrl)) &&
            hold.kind === 'user' &&
            keys.includes(hold.clientId),
        );
        const missing = keys.filter((key) => !held.some(({ hold }) => hold.clientId === key));
        if (missing.length > 0)
          throw new ConfigError(
            `No hold on ${missing.map((key) => `"${key}"`).join(', ')}${options.conference ? ` in ${options.conference}` : ''}: nothing was let go. ` +
              '`evsync status` lists the held keys.',
            { code: CODE.EVSYNC_USAGE },
          );
        const twice = keys.find((key) => held.filter(({ hold }) => hold.clientId === key).length > 1);
        if (twice !== undefined)
          throw new ConfigError(
            `"${twice}" is held in several conferences (${held
              .filter(({ hold }) => hold.clientId === twice)
              .map(({ conference }) => conferenceHost(conference.baseUrl))
              .join(', ')}): name one with --conference. Nothing was let go.`,
            { code: CODE.EVSYNC_USAGE },
          );
        // user@host, as forget names who ran it.
        const by = erasedBy();
        for (const { conference, hold } of held) {
          await ledger.forConference(conference).holds().release('user', [hold.clientId]);
          const host = conferenceHost(conference.baseUrl);
          // Who let it go, in the log: the refusing run keeps who the two people were.
          rootLogger().info(
            { command: 'release-hold', conference: host, key: hold.clientId, refusedBy: hold.runId, by },
            'hold released',
          );
          process.stdout.write(
            `Released user "${hold.clientId}" in ${host} (held since run ${hold.runId} of job "${hold.jobName}" refused it): ` +
              'every job now sends its links, schedules and check-ins to the account it maps to.\n',
          );
        }
      } finally {
        await ledger.close();
      }
    });
}
