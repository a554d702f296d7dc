import { html } from 'hono/html';
import type { ActionCounts } from '../../model/result-records.js';
import type { RunSummaryData } from '../dashboard-data.js';
import { type ConferenceOption, RUN_LIST_LIMIT, type RunListData, type RunListQuery } from '../run-list.js';
import { statusLabel } from '../run-next-step.js';
import { jobsView } from './jobs-view.js';
import { formatDuration, type Html, query, runPath, timeTag } from './page-layout.js';

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

export function runsView(data: RunListData, filter: RunListQuery): Html {
  const { runs, conferences } = data;
  const shown = conferences.find((conference) => conference.id === filter.conferenceId);
  return html`<h1>Runs${shown ? html` of ${shown.host}` : ''}</h1>
    ${jobsView(data.jobs, data.heldKeys)}
    ${conferences.length > 0 ? conferenceFilter(conferences, filter) : ''}
    ${
      runs.length === 0
        ? shown
          ? html`<p>No runs of ${shown.host} yet. <a href="${runsPath(filter, undefined)}">All runs</a></p>`
          : html`<p>No runs yet. Run a job with <code>evsync run JOB_FILE</code>.</p>`
        : html`<div class="scroll">
            <table class="runs">
              <thead>
                <tr>
                  <th>Run</th>
                  <th>Job</th>
                  <th>Conference</th>
                  <th>Mode</th>
                  <th>Trigger</th>
                  <th>Started</th>
                  <th>Duration</th>
                  <th>Status</th>
                  ${SHOWN_ACTIONS.map((action) => html`<th class="num">${action}</th>`)}
                </tr>
              </thead>
              <tbody>
                ${runs.map((run) => runRow(run, filter))}
              </tbody>
            </table>
          </div>`
    }`;
}

/** The select of the known conferences; the limit asked for goes along. */
function conferenceFilter(conferences: readonly ConferenceOption[], filter: RunListQuery): Html {
  return html`<form method="get" action="/runs" class="filters">
    <label
      >Conference
      <select name="conference">
        <option value="">any</option>
        ${conferences.map(
          (conference) =>
            html`<option value="${conference.id}" ${conference.id === filter.conferenceId ? 'selected' : ''}>
              ${conference.host}
            </option>`,
        )}
      </select></label
    >
    ${filter.limit === RUN_LIST_LIMIT ? '' : html`<input type="hidden" name="limit" value="${filter.limit}" />`}
    <button>Filter</button>
  </form>`;
}

/** `/runs` with the limit asked for (when not the default) and a conference. */
function runsPath(filter: RunListQuery, conferenceId: number | undefined): string {
  return `/runs${query({ conference: conferenceId, limit: filter.limit === RUN_LIST_LIMIT ? undefined : filter.limit })}`;
}

function runRow(run: RunSummaryData, filter: RunListQuery): Html {
  return html`<tr data-run="${run.id}">
    <td data-label="Run">
      <a href="${runPath(run.id)}">${run.id}</a
      >${run.retryOf ? html`<br /><small>retry of <a href="${runPath(run.retryOf)}">${run.retryOf}</a></small>` : ''}${
        run.rerunOf
          ? html`<br /><small>again from <a href="${runPath(run.rerunOf)}">${run.rerunOf}</a></small>`
          : ''
      }
    </td>
    <td data-label="Job">${run.jobName}</td>
    <td data-label="Conference" data-conference>${conferenceCell(run, filter)}</td>
    <td data-label="Mode">${run.mode}${run.options.full === true ? ', full' : ''}</td>
    <td data-label="Trigger">${run.trigger}</td>
    <td data-label="Started">${timeTag(run.startedAt)}</td>
    <td data-label="Duration">${formatDuration(run.durationMs)}${run.durationNote}</td>
    <td data-label="Status">${statusBadge(run)}${prunedBadge(run)}</td>
    ${countCells(run.counts)}
  </tr>`;
}

/** The run's conference, a link to its runs alone; a run from before migration 8 names none. */
function conferenceCell(run: RunSummaryData, filter: RunListQuery): Html {
  if (run.conference === null || run.conferenceId === null) return notRecorded();
  if (run.conferenceId === filter.conferenceId) return html`${run.conference}`;
  return html`<a href="${runsPath(filter, run.conferenceId)}" title="only this conference's runs"
    >${run.conference}</a
  >`;
}

/** What a run recorded before runs named their conference shows instead of one. */
export function notRecorded(): Html {
  return html`<span class="note" title="recorded before evsync kept each run's conference"
    >not recorded</span
  >`;
}

export function countCells(counts: ActionCounts): Html {
  return html`${SHOWN_ACTIONS.map((action) => {
    const n = counts[action] ?? 0;
    const bad = n > 0 && action === 'failed' ? ' bad' : '';
    return html`<td class="num${bad}" data-label="${action}" data-count="${action}">${n}</td>`;
  })}`;
}

/**
 * A run's status as `shownStatus` has it, `completed, 12 failed` when rows failed (not a
 * success's colour); its class as the page's script sets it when it changes.
 */
export function statusBadge(run: Pick<RunSummaryData, 'status' | 'processGone' | 'counts' | 'lost'>): Html {
  const { label, tone } = statusLabel(run);
  return html`<span class="badge s-${tone}" data-status>${label}</span>`;
}

/** Beside a pruned run's status: its rows are gone, its counts stay (docs/ledger.md, "Retention"). */
export function prunedBadge(run: Pick<RunSummaryData, 'pruned' | 'prunedNote'>): Html {
  if (run.pruned === null) return html``;
  return html` <span class="badge s-pruned" data-pruned title="${run.prunedNote ?? ''}">${run.pruned}</span>`;
}
