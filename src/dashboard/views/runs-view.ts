import { html } from 'hono/html';
import type { ActionCounts } from '../../model/result-records.js';
import { shownStatus, type RunSummaryData } from '../dashboard-data.js';
import { formatDuration, formatTime, type Html, runPath } from './page-layout.js';

/** The counts a run list shows, in the order an operator reads them. */
export const SHOWN_ACTIONS = [
  'created',
  'attached',
  'updated',
  'unchanged',
  'deleted',
  'skipped',
  'failed',
] as const;

export function runsView(runs: readonly RunSummaryData[]): Html {
  return html`<h1>Runs</h1>
    ${
      runs.length === 0
        ? html`<p>No runs yet. Run a job with <code>evsync run JOB_FILE</code>.</p>`
        : html`<div class="scroll">
            <table class="runs">
              <thead>
                <tr>
                  <th>Run</th>
                  <th>Job</th>
                  <th>Mode</th>
                  <th>Trigger</th>
                  <th>Started (UTC)</th>
                  <th>Duration</th>
                  <th>Status</th>
                  ${SHOWN_ACTIONS.map((action) => html`<th class="num">${action}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${runs.map(runRow)}
              </tbody>
            </table>
          </div>`
    }`;
}

function runRow(run: RunSummaryData): Html {
  return html`<tr data-run="${run.id}">
    <td>
      <a href="${runPath(run.id)}">${run.id}</a
      >${run.retryOf ? html`<br /><small>retry of <a href="${runPath(run.retryOf)}">${run.retryOf}</a></small>` : ''}${
        run.rerunOf
          ? html`<br /><small>again from <a href="${runPath(run.rerunOf)}">${run.rerunOf}</a></small>`
          : ''
      }
    </td>
    <td>${run.jobName}</td>
    <td>${run.mode}</td>
    <td>${run.trigger}</td>
    <td>${formatTime(run.startedAt)}</td>
    <td>${formatDuration(run.durationMs)}</td>
    <td>${statusBadge(run)}</td>
    ${countCells(run.counts)}
  </tr>`;
}

export function countCells(counts: ActionCounts): Html {
  return html`${SHOWN_ACTIONS.map((action) => {
    const n = counts[action] ?? 0;
    return html`<td class="num${n > 0 && action === 'failed' ? ' bad' : ''}" data-count="${action}">
      ${n}
    </td>`;
  })}`;
}

/** A run's status as `shownStatus` has it; its class as the page's script sets it when it changes. */
export function statusBadge(run: Pick<RunSummaryData, 'status' | 'processGone'>): Html {
  const status = shownStatus(run);
  return html`<span class="badge s-${status.replace(' ', '-')}" data-status>${status}</span>`;
}
