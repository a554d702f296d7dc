import type { Transporter } from 'nodemailer';
import { CODE } from '../../errors/codes.js';
import { ConfigError } from '../../errors/evsync-error.js';
import type { NotifyChannel } from './notify-settings.js';

export type EmailChannel = Extract<NotifyChannel, { email: unknown }>['email'];

/**
 * Query keys of an SMTP URL that nodemailer would let override the TLS rule below: the job's
 * `allow_login_without_tls` is the one way to turn it off (docs/notifications.md).
 */
const TLS_OVERRIDES = ['requireTLS', 'ignoreTLS', 'opportunisticTLS', 'secure'];

/** How an e-mail channel connects: whether it logs in, and whether TLS comes first. */
export interface SmtpPlan {
  url: string;
  /** The URL carries a user or a password: the server is logged in to. */
  logsIn: boolean;
  /** `smtps://`: TLS from the first byte. */
  implicitTls: boolean;
  /** STARTTLS before anything else, or no message: a login never goes unencrypted. */
  requireTls: boolean;
}

/** What `smtpUrl` and the channel's settings make of a connection (without opening one). */
export function smtpPlan(email: EmailChannel, smtpUrl: string): SmtpPlan {
  let parsed: URL;
  try {
    parsed = new URL(smtpUrl);
  } catch {
    throw new ConfigError(`${email.smtp_url_env} is not a URL: write smtp://user:pass@host:587 or smtps://…`);
  }
  for (const key of TLS_OVERRIDES) parsed.searchParams.delete(key);
  const implicitTls = parsed.protocol === 'smtps:';
  const logsIn = parsed.username !== '' || parsed.password !== '';
  return {
    url: parsed.toString(),
    logsIn,
    implicitTls,
    // nodemailer's requireTLS sends STARTTLS even when the server does not offer it, and
    // stops (ETLS) when it is refused: AUTH is never reached in the clear.
    requireTls: !implicitTls && logsIn && !email.allow_login_without_tls,
  };
}

/** A nodemailer transport for the channel, each phase bounded by `timeoutMs`. */
export async function smtpTransport(plan: SmtpPlan, timeoutMs: number): Promise<Transporter> {
  // Lazy: only an e-mail notice needs nodemailer, not every run that reviews its job.
  const { default: nodemailer } = await import('nodemailer');
  return nodemailer.createTransport({
    url: plan.url,
    requireTLS: plan.requireTls,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
}

/**
 * A failure of nodemailer in words a person acts on: a server that refused STARTTLS is
 * `EVSYNC_SMTP_NOT_ENCRYPTED` (not worth trying again); anything else is returned as it is.
 */
export function smtpFailure(error: unknown, plan: SmtpPlan, email: EmailChannel): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (plan.requireTls && code === 'ETLS')
    return new ConfigError(
      `the SMTP server of ${email.smtp_url_env} offers no STARTTLS, so evsync did not log in: ` +
        'its password would have gone unencrypted. Use smtps:// (port 465) or a server with STARTTLS; ' +
        'on a trusted network only, set `allow_login_without_tls: true` on the channel.',
      { code: CODE.EVSYNC_SMTP_NOT_ENCRYPTED, cause: error },
    );
  return error;
}
