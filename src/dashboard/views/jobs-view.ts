import { html } from 'hono/html';
import type { JobOverview } from '../../sync/notify/job-overview.js';
import { HELD_KEYS_HEADING, heldKeyWords, type HeldKey } from '../../sync/phases/held-keys.js';
import { type Html, query, runPath, timeTag } from './page-layout.js';
import { notSyncedNote } from '../../model/run-record.js';

/**
 * The runs page's first lines: one per job, as `evsync status` tells it (`jobOverviews`).
 * How its last run ended (`ok`, `12 failed`, `aborted at 02:14`), its last success, its next
 * fire time when scheduled, `overdue`, and a notification that could not be delivered. Under
 * them the keys held as now another person, as `status` lists them.
 */
export function jobsView(jobs: readonly JobOverview[], held: readonly HeldKey[] = []): Html {
  if (jobs.length === 0 && held.length === 0) return html``;
  return html`<section id="jobs">
    <h2>Jobs</h2>
    <ul class="jobs">
      ${jobs.map(jobLine)}
    </ul>
    ${heldView(held)}
  </section>`;
}

/** Each held key with the run that refused it, linked to that run's refused row (`evsync report … --search KEY`). */
function heldView(held: readonly HeldKey[]): Html {
  if (held.length === 0) return html``;
  return html`<div id="held-keys">
    <p>${HELD_KEYS_HEADING}:</p>
    <ul class="held">
      ${held.map((hold) => {
        const words = heldKeyWords(hold);
        const row = `${runPath(hold.runId)}/results${query({ status: 'failed', q: words.search })}`;
        return html`<li data-held="${hold.kind}:${hold.clientId}">
          ${words.key}: <a href="${row}">${words.refusedBy}</a> ${timeTag(new Date(hold.heldAt))}
          (<code>${words.code}</code>)
        </li>`;
      })}
    </ul>
  </div>`;
}

function jobLine(job: JobOverview): Html {
  const last = job.lastRun;
  const { text, tone } = outcomeOf(last);
  const problem = job.overdue || (job.notify?.undelivered.length ?? 0) > 0;
  return html`<li class="j-${problem && tone === 'ok' ? 'problem' : tone}" data-job="${job.job}">
    <span class="job-name">${job.job}</span
    >${job.conference ? html` <span class="note">${job.conference}</span>` : ''}
    <div>
      ${
        last
          ? html`Last run <a href="${runPath(last.id)}">${timeTag(new Date(last.startedAt))}</a>:
              <strong data-outcome>${text}</strong>${
                stoppedAt(last) ? html` at ${timeTag(new Date(stoppedAt(last)!))}` : ''
              }`
          : html`<span data-outcome>not run yet</span>`
      }
    </div>
    <div class="job-facts">
      Last success:
      ${
        job.lastSuccess
          ? html`<a href="${runPath(job.lastSuccess.id)}"
              >${timeTag(job.lastSuccess.finishedAt ? new Date(job.lastSuccess.finishedAt) : null)}</a
            >`
          : 'none yet'
      }${
        job.schedule
          ? html` · Schedule <code>${job.schedule.cron}</code> (${job.schedule.timezone}), next
              ${job.next ? timeTag(new Date(job.next)) : 'not planned'}`
          : ''
      }${
        job.overdue
          ? html` · <span class="overdue" data-overdue>overdue: nothing completed within its period</span>`
          : ''
      }
    </div>
    ${(job.notify?.undelivered ?? []).map(
      (failed) =>
        html`<div class="undelivered" data-undelivered>
          The ${failed.event} notification to ${failed.channel} could not be delivered (${failed.attempts}
          attempts, ${timeTag(new Date(failed.at))})${failed.error ? html`: ${failed.error}` : ''}
        </div>`,
    )}
  </li>`;
}

type LastRun = NonNullable<JobOverview['lastRun']>;

/** `ok`, `12 failed`, `running`, or how it stopped; and the line's colour. */
function outcomeOf(last: LastRun | null): {
  text: string;
  tone: 'ok' | 'partial' | 'stopped' | 'problem' | 'running';
} {
  if (last === null) return { text: 'not run yet', tone: 'ok' };
  const notSynced = notSyncedNote(last);
  if (last.shownStatus === 'completed')
    return notSynced !== '' ? { text: notSynced, tone: 'partial' } : { text: 'ok', tone: 'ok' };
  if (last.shownStatus === 'running' || last.shownStatus === 'waiting for a worker')
    return { text: last.shownStatus, tone: 'running' };
  if (last.shownStatus === 'failed' || last.shownStatus === 'aborted')
    return { text: last.shownStatus, tone: 'problem' };
  return { text: last.shownStatus, tone: 'stopped' };
}

/** When a run that did not complete stopped: its end, or, cut off, its last result. */
function stoppedAt(last: LastRun): string | null {
  if (['completed', 'running', 'waiting for a worker'].includes(last.shownStatus)) return null;
  return last.finishedAt ?? last.cutOffAt ?? last.startedAt;
}
