import type { NotifyChannel } from './notify-settings.js';
import { webhookOrigin } from './webhook-target.js';

/**
 * A channel in words, without its secrets: `webhook https://hooks.slack.com`,
 * `email to ops@example.com`. The one name a channel has in the ledger (`notice_deliveries`),
 * `status`, the dashboard, `doctor` and the logs: a webhook's scheme, host and port only,
 * since incoming-webhook URLs carry their secret in the path, the query or a login.
 */
export function channelName(channel: NotifyChannel, env: NodeJS.ProcessEnv): string {
  if ('email' in channel) return `email to ${[channel.email.to].flat().join(', ')}`;
  const urlEnv = channel.webhook.url_env;
  const raw = env[urlEnv];
  if (raw === undefined || raw === '') return `webhook (${urlEnv} not set)`;
  try {
    return `webhook ${webhookOrigin(new URL(raw))}`;
  } catch {
    return `webhook (${urlEnv} is not a URL)`;
  }
}

/**
 * What a recorded channel name stands for, to tell one channel's deliveries from another's.
 * Names recorded before a webhook was named by its scheme too said its host alone
 * (`webhook hooks.slack.com`); both name the same channel, so that a delivery that failed
 * under the old name is superseded by a later one under the new.
 */
export function sameChannel(name: string): string {
  return name.replace(/^webhook [a-z][a-z0-9+.-]*:\/\//i, 'webhook ');
}
