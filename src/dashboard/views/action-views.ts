import { html } from 'hono/html';
import type { Session } from '../dashboard-auth.js';
import type { LoginVerdict } from '../login-throttle.js';
import { csrfInput, type Html, runPath } from './page-layout.js';

export interface ConfirmOptions {
  runId: string;
  /** `retry`, `resume` or `rerun`: the POST route under the run. */
  action: string;
  title: string;
  /** What will happen, in a sentence or two. */
  what: string;
  /** What was done before that bears on it (a retry's earlier retries), shown above `what`. */
  before?: Html | undefined;
  /** Form fields carried to the POST (a retry's filter). */
  fields?: Record<string, string | undefined>;
  session: Session | undefined;
  /** Why it cannot be done, instead of the button. */
  refusal?: string | undefined;
  /** Another action that does what this one cannot (a run of the job for rows a retry cannot find). */
  alternative?: { href: string; label: string } | undefined;
  /** The page the action is asked from, when not the run's (an audit's repair). */
  from?: { path: string; label: string };
}

/** Every action asks first: this page says what it will do, and its button does it. */
export function confirmView(options: ConfirmOptions): Html {
  const base = options.from?.path ?? runPath(options.runId);
  const alternative = options.alternative
    ? html`<a class="button${options.refusal ? '' : ' secondary'}" href="${options.alternative.href}"
        >${options.alternative.label}</a
      >`
    : '';
  return html`<p><a href="${base}">← ${options.from?.label ?? `run ${options.runId}`}</a></p>
    <h1>${options.title}</h1>
    ${options.before ?? ''}
    <p class="what">${options.what}</p>
    ${
      options.refusal
        ? html`<p class="problem">${options.refusal}</p>
            <p class="actions">${alternative} <a href="${base}">Cancel</a></p>`
        : html`<form method="post" action="${base}/${options.action}" class="confirm">
            ${csrfInput(options.session)}
            ${Object.entries(options.fields ?? {}).map(([name, value]) =>
              value === undefined || value === ''
                ? ''
                : html`<input type="hidden" name="${name}" value="${value}" />`,
            )}
            <button>${options.title}</button> ${alternative} <a href="${base}">Cancel</a>
          </form>`
    }`;
}

/** A problem a person can act on: what happened and, with a code, what it means. */
export function problemView(title: string, message: string, code?: string): Html {
  return html`<h1>${title}</h1>
    <p class="problem">${message}</p>
    ${code ? html`<p><code>${code}</code></p>` : ''}
    <p><a href="/runs">Back to the runs</a></p>`;
}

/** @param verdict the last try's, when it failed */
export function loginView(next: string, verdict?: LoginVerdict): Html {
  return html`<h1>Log in</h1>
    ${verdict?.outcome === 'wrong' ? html`<p class="problem">That token is not the dashboard's.</p>` : ''}
    ${
      verdict?.outcome === 'locked'
        ? html`<p class="problem">Too many wrong tokens: try again in ${verdict.retryAfterSeconds} s.</p>`
        : ''
    }
    <form method="post" action="/login" class="login">
      <input type="hidden" name="next" value="${next}" />
      <label
        >Token <input type="password" name="token" autocomplete="current-password" autofocus required
      /></label>
      <button>Log in</button>
    </form>
    <p class="note">
      The token is EVSYNC_DASHBOARD_TOKEN, or the one in the login URL <code>evsync dashboard</code> printed.
    </p>`;
}
