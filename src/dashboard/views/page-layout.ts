import { html } from 'hono/html';
import type { Session } from '../dashboard-auth.js';
import { CSRF_FIELD } from '../dashboard-auth.js';

/**
 * Pages are server-rendered with hono's `html` template: every value interpolated into it
 * is escaped, so text from the ledger (a row's cell, a platform message) shows as text.
 * Only other `html` fragments go in unescaped.
 */
export type Html = ReturnType<typeof html>;

export interface PageOptions {
  title: string;
  session?: Session | undefined;
  /** Served from /assets, loaded as `defer`. */
  scripts?: string[];
  styles?: string[];
  /** Whether distributed mode is on: the menu links the queue. */
  distributed?: boolean;
}

export function page(options: PageOptions, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · evsync</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
        ${(options.styles ?? []).map((href) => html`<link rel="stylesheet" href="${href}" />`)}
        ${(options.scripts ?? []).map((src) => html`<script defer src="${src}"></script>`)}
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/runs">evsync</a>
          <nav>
            <a href="/runs">Runs</a>
            <a href="/erasures">Erasures</a>
            ${options.distributed ? html`<a href="/queue">Queue</a> <a href="/queues">Bull Board</a>` : ''}
          </nav>
          ${
            options.session
              ? html`<form method="post" action="/logout" class="inline">
                  ${csrfInput(options.session)}<button class="link">Log out</button>
                </form>`
              : ''
          }
        </header>
        <main>${body}</main>
      </body>
    </html>`;
}

export function csrfInput(session: Session | undefined): Html {
  return session ? html`<input type="hidden" name="${CSRF_FIELD}" value="${session.csrf}" />` : html``;
}

/** `2026-11-22 01:45:12` UTC, or an em dash. */
export function formatTime(date: Date | null | undefined): string {
  return date ? date.toISOString().replace('T', ' ').slice(0, 19) : '—';
}

/**
 * A time as the browser's zone shows it: rendered in UTC here (`2026-11-22 01:45:12 UTC`),
 * the page's script writes it in the browser's zone, the UTC time staying on hover.
 */
export function timeTag(date: Date | null | undefined): Html {
  if (!date) return html`—`;
  const utc = `${formatTime(date)} UTC`;
  return html`<time datetime="${date.toISOString()}" title="${utc}">${utc}</time>`;
}

/** `3 h 04 min`, `2 min 05 s`, `850 ms`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** A query string from the set values, for links that keep a filter. */
export function query(values: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** `/runs/ID/results/KIND/KEY`, each part URL-encoded (a key may hold `/`, `@`, `#`). */
export function rowPath(runId: string, kind: string, key: string): string {
  return `/runs/${encodeURIComponent(runId)}/results/${encodeURIComponent(kind)}/${encodeURIComponent(key)}`;
}

export function runPath(runId: string): string {
  return `/runs/${encodeURIComponent(runId)}`;
}
