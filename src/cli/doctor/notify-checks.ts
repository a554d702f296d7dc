import { messageOf } from '../../errors/evsync-error.js';
import { redactUrl } from '../../log/redaction.js';
import type { LoadedJob } from '../../sync/job-file.js';
import { channelName } from '../../sync/notify/channel-name.js';
import type { NotifyChannel } from '../../sync/notify/notify-settings.js';
import { fetchFailure, webhookTarget, type WebhookTarget } from '../../sync/notify/webhook-target.js';
import { smtpFailure, smtpPlan, smtpTransport, type EmailChannel } from '../../sync/notify/smtp-transport.js';
import type { CheckResult } from './doctor-check.js';

/** How long a channel may take to answer doctor, in seconds. */
const NOTIFY_CHECK_SECONDS = 10;

type Verdict = Omit<CheckResult, 'check'>;

/**
 * Each channel of the job's `notify:` (docs/notifications.md), as the process that runs the
 * job would reach it: its variables are set, a webhook answers (a `HEAD`, so that nobody is
 * told anything), an SMTP server answers, takes the login and encrypts it first. One line
 * per channel; nothing is sent.
 */
export async function notifyChecks(
  job: LoadedJob,
  env: NodeJS.ProcessEnv = process.env,
  seconds = NOTIFY_CHECK_SECONDS,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const channel of job.notify?.channels ?? []) {
    const check = `notify ${channelName(channel, env)}`;
    try {
      results.push({ check, ...(await withinSeconds(checkChannel(channel, env, seconds), seconds)) });
    } catch (error) {
      results.push({ check, status: 'fail', message: redactUrl(messageOf(error)) });
    }
  }
  return results;
}

function checkChannel(channel: NotifyChannel, env: NodeJS.ProcessEnv, seconds: number): Promise<Verdict> {
  return 'webhook' in channel
    ? checkWebhook(channel.webhook.url_env, env, seconds)
    : checkEmail(channel.email, env, seconds);
}

function unset(name: string, what: string): Verdict {
  return {
    status: 'fail',
    message: `${name} is not set: nobody can be told`,
    fix: `set ${name} to ${what} where the job runs (.env, the worker's environment)`,
  };
}

async function checkWebhook(urlEnv: string, env: NodeJS.ProcessEnv, seconds: number): Promise<Verdict> {
  const url = env[urlEnv];
  if (url === undefined || url === '') return unset(urlEnv, 'the webhook URL');
  let target: WebhookTarget;
  try {
    target = webhookTarget(urlEnv, url);
  } catch (error) {
    return cannotRequest(urlEnv, messageOf(error));
  }
  const started = Date.now();
  try {
    // With the URL's login as a header, as a message goes (`fetch` takes no login in a URL).
    const response = await fetch(target.url, {
      method: 'HEAD',
      headers: target.headers,
      signal: AbortSignal.timeout(seconds * 1000),
    });
    await response.body?.cancel().catch(() => {});
    // Any answer proves the receiver up: many take only POST (405), and that is what they get.
    return { status: 'ok', message: `answers (HTTP ${response.status}, ${Date.now() - started} ms)` };
  } catch (error) {
    const failure = fetchFailure(error, target);
    if (failure.unsendable) return cannotRequest(urlEnv, failure.text);
    return {
      status: 'fail',
      message: `does not answer: ${failure.text}`,
      fix: `check ${urlEnv} and that the receiver is up and reachable from here`,
    };
  }
}

function cannotRequest(urlEnv: string, why: string): Verdict {
  return {
    status: 'fail',
    message: `evsync cannot make a request of ${urlEnv}, so no message can go: ${why}`,
    fix: `set ${urlEnv} to the webhook's address (https://host/…, a login as https://user:password@host/…)`,
  };
}

async function checkEmail(email: EmailChannel, env: NodeJS.ProcessEnv, seconds: number): Promise<Verdict> {
  const url = env[email.smtp_url_env];
  if (url === undefined || url === '') return unset(email.smtp_url_env, 'the SMTP URL');
  const plan = smtpPlan(email, url);
  const transport = await smtpTransport(plan, seconds * 1000);
  try {
    // Connects, says EHLO, STARTTLS when required, and logs in: what a message does first.
    await transport.verify();
  } catch (error) {
    const failure = smtpFailure(error, plan, email);
    return {
      status: 'fail',
      message: redactUrl(messageOf(failure)),
      ...(failure === error ? { fix: `check ${email.smtp_url_env}: its server, port and login` } : {}),
    };
  } finally {
    transport.close();
  }
  if (plan.logsIn && !plan.implicitTls && email.allow_login_without_tls)
    return {
      status: 'warn',
      message:
        'answers and takes the login; allow_login_without_tls is set: where the server offers no STARTTLS the password goes unencrypted',
      fix: 'use smtps:// or a server with STARTTLS, and drop allow_login_without_tls',
    };
  const how = plan.implicitTls ? 'over TLS' : plan.requireTls ? 'after STARTTLS' : 'without a login';
  return { status: 'ok', message: `answers and takes a message ${how}` };
}

/** `work`'s verdict, or a failed check once `seconds` (and a little) have passed. */
async function withinSeconds(work: Promise<Verdict>, seconds: number): Promise<Verdict> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Verdict>((resolve) => {
    timer = setTimeout(
      () => resolve({ status: 'fail', message: `no answer within ${seconds} s` }),
      seconds * 1000 + 1_000,
    );
    timer.unref();
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
