import { createHmac } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerNotices } from '../../ledger/ledger-notices.js';
import type { Logger } from '../../log/logger.js';
import { redactUrl } from '../../log/redaction.js';
import { ConfigError, EvsyncError } from '../../errors/evsync-error.js';
import { smtpFailure, smtpPlan, smtpTransport, type EmailChannel } from './smtp-transport.js';
import { noteNotification } from '../../metrics/process-metrics.js';
import { channelName } from './channel-name.js';
import { durationMs, type NotifyChannel, type NotifySettings } from './notify-settings.js';
import { noticeHtml } from './notice-html.js';
import { noticeSubject, noticeText, type Notice } from './notice-message.js';
import { fetchFailure, webhookTarget } from './webhook-target.js';

/** How long one attempt may take before it counts as failed (less when `retry.deadline` is nearer). */
const ATTEMPT_TIMEOUT_MS = 15_000;

/** The header carrying the HMAC-SHA256 of `timestamp.body` (docs/notifications.md, "Webhooks"). */
export const SIGNATURE_HEADER = 'x-evsync-signature';
export const TIMESTAMP_HEADER = 'x-evsync-timestamp';

export interface DeliverDeps {
  notices: LedgerNotices;
  /** Where channels read their URLs and keys, by the names the settings give. */
  env: NodeJS.ProcessEnv;
  logger?: Logger | undefined;
}

/**
 * Sends one message on every channel of the settings, each tried `retry.attempts` times with
 * a doubling wait, and records each delivery. Never throws: a message that cannot be
 * delivered is logged and recorded as `failed`, and the run's outcome stands.
 */
export async function deliverNotice(
  deps: DeliverDeps,
  settings: NotifySettings,
  notice: Notice,
): Promise<Array<{ channel: string; status: 'sent' | 'failed' }>> {
  return Promise.all(
    settings.channels.map(async (channel) => {
      const name = channelName(channel, deps.env);
      const id = await deps.notices
        .addDelivery({
          jobName: notice.job,
          runId: notice.run?.id ?? null,
          event: notice.event,
          channel: name,
        })
        .catch(() => undefined);
      const outcome = await attempt(
        (timeoutMs) => send(channel, notice, deps.env, timeoutMs),
        settings.retry,
      );
      noteNotification(
        'webhook' in channel ? 'webhook' : 'email',
        outcome.error === undefined ? 'sent' : 'failed',
      );
      const log = { job: notice.job, event: notice.event, channel: name, attempts: outcome.attempts };
      if (outcome.error === undefined) deps.logger?.info(log, 'notification sent');
      else deps.logger?.warn({ ...log, error: outcome.error }, 'notification not delivered');
      if (id !== undefined)
        await deps.notices
          .finishDelivery(id, {
            status: outcome.error === undefined ? 'sent' : 'failed',
            attempts: outcome.attempts,
            ...(outcome.error === undefined ? {} : { error: outcome.error }),
          })
          .catch(() => {});
      return { channel: name, status: outcome.error === undefined ? ('sent' as const) : ('failed' as const) };
    }),
  );
}

/** A failure not worth trying again: a setting is missing. */
class NotSendable extends Error {}

/** A typed failure that says a later try cannot succeed (`EVSYNC_SMTP_NOT_ENCRYPTED`, a bad URL). */
function notRetryable(error: unknown): boolean {
  return error instanceof EvsyncError && !error.retryable;
}

/**
 * Tries `sendOnce` up to `retry.attempts` times with a doubling wait, all within
 * `retry.deadline`: each attempt gets what is left of it (at most `ATTEMPT_TIMEOUT_MS`), and
 * no attempt starts after it. A receiver that never answers cannot hold a process longer.
 */
async function attempt(
  sendOnce: (timeoutMs: number) => Promise<void>,
  retry: NotifySettings['retry'],
): Promise<{ attempts: number; error?: string }> {
  const firstWait = durationMs(retry.backoff);
  const deadline = Date.now() + durationMs(retry.deadline);
  for (let tried = 1; ; tried++) {
    try {
      const timeoutMs = Math.max(1, Math.min(ATTEMPT_TIMEOUT_MS, deadline - Date.now()));
      await within(sendOnce(timeoutMs), timeoutMs);
      return { attempts: tried };
    } catch (error) {
      const text = redactUrl(error instanceof Error ? error.message : String(error));
      if (error instanceof NotSendable || notRetryable(error) || tried >= retry.attempts)
        return { attempts: tried, error: text };
      const wait = firstWait * 2 ** (tried - 1);
      if (Date.now() + wait >= deadline)
        return { attempts: tried, error: `${text} (no time left within retry.deadline ${retry.deadline})` };
      await sleep(wait);
    }
  }
}

/**
 * `sending`, or a failure once `ms` have passed: nodemailer's timeouts are per phase
 * (connect, greeting, each socket read), so a slow server could take several of them.
 */
async function within(sending: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${Math.ceil(ms / 1000)} s`)), ms);
  });
  try {
    await Promise.race([sending, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function send(
  channel: NotifyChannel,
  notice: Notice,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<void> {
  if ('webhook' in channel) return sendWebhook(channel.webhook, notice, env, timeoutMs);
  return sendEmail(channel.email, notice, env, timeoutMs);
}

function required(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name];
  if (value === undefined || value === '')
    throw new NotSendable(`${name} is not set: it should hold ${what}`);
  return value;
}

async function sendWebhook(
  webhook: Extract<NotifyChannel, { webhook: unknown }>['webhook'],
  notice: Notice,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<void> {
  const urlEnv = webhook.url_env;
  const target = webhookTarget(urlEnv, required(env, urlEnv, 'the webhook URL'));
  const body = JSON.stringify(webhook.format === 'chat' ? { text: noticeText(notice) } : notice);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'evsync',
    ...target.headers,
  };
  if (webhook.secret_env !== undefined) {
    const secret = required(env, webhook.secret_env, 'the webhook signing key');
    const timestamp = String(Math.floor(Date.now() / 1000));
    headers[TIMESTAMP_HEADER] = timestamp;
    headers[SIGNATURE_HEADER] =
      `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
  }
  let response: Response;
  try {
    response = await fetch(target.url, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    // Either fetch's message or its cause may quote the URL: what is said names its origin only.
    const failure = fetchFailure(error, target);
    if (failure.unsendable)
      throw new ConfigError(
        `evsync cannot send to the webhook at ${target.origin}: ${failure.text}: check ${urlEnv}`,
      );
    throw new Error(
      `the webhook at ${target.origin} could not be reached (${failure.text}): ` +
        `check ${urlEnv} and that the receiver is up and reachable from here`,
    );
  }
  await response.body?.cancel().catch(() => {});
  if (response.status === 401 || response.status === 403)
    throw new Error(
      `the webhook at ${target.origin} refused the message (HTTP ${response.status}): ` +
        (target.headers.authorization === undefined
          ? `check the token in ${urlEnv}, or give it a login: https://user:password@host/…`
          : `check the login (user:password@) in ${urlEnv}`),
    );
  if (!response.ok) throw new Error(`the webhook at ${target.origin} answered HTTP ${response.status}`);
}

async function sendEmail(
  email: EmailChannel,
  notice: Notice,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<void> {
  const smtpUrl = required(env, email.smtp_url_env, 'the SMTP URL (smtp://user:pass@host:587 or smtps://…)');
  const plan = smtpPlan(email, smtpUrl);
  const transport = await smtpTransport(plan, timeoutMs);
  try {
    await transport.sendMail({
      from: email.from,
      to: [email.to].flat(),
      subject: noticeSubject(notice),
      text: noticeText(notice),
      html: noticeHtml(notice),
    });
  } catch (error) {
    throw smtpFailure(error, plan, email);
  } finally {
    transport.close();
  }
}
