import { html } from 'hono/html';
import type { IntentKind } from '../../model/intent.js';
import { shownStatus, type ResultsPage, type ResultsQuery, type RunData } from '../dashboard-data.js';
import { formatDuration, formatTime, type Html, query, runPath } from './page-layout.js';
import { resultsSection } from './results-view.js';
import { skippedLine } from '../../sync/plan/plan-summary.js';
import { countCells, notRecorded, prunedBadge, SHOWN_ACTIONS, statusBadge } from './runs-view.js';

/**
 * Statuses a resume can finish. `running` too: a run whose process died stays marked
 * running, and a resume of one still going answers that it is busy.
 */
const RESUMABLE = ['running', 'interrupted', 'aborted', 'failed'];

export function runView(data: RunData, filter: ResultsQuery, page: ResultsPage): Html {
  const { run } = data;
  const base = runPath(run.id);
  const failed = run.counts.failed ?? 0;
  return html`<div id="run" data-run="${run.id}" data-status="${shownStatus(run)}">
    <h1>Run ${run.id}</h1>
    <dl class="facts">
      <dt>Job</dt>
      <dd>${run.jobName} (${run.mode}${run.options.full === true ? ', full run' : ''})</dd>
      <dt>Conference</dt>
      <dd data-conference>
        ${
          run.conference === null || run.conferenceId === null
            ? notRecorded()
            : html`<a href="/runs${query({ conference: run.conferenceId })}" title="this conference's runs"
                >${run.conference}</a
              >`
        }
      </dd>
      <dt>Trigger</dt>
      <dd>
        ${run.trigger}${run.retryOf ? html` of <a href="${runPath(run.retryOf)}">${run.retryOf}</a>` : ''}${
          run.rerunOf
            ? html`, running again the job of <a href="${runPath(run.rerunOf)}">${run.rerunOf}</a>`
            : ''
        }
      </dd>
      <dt>Started</dt>
      <dd>${formatTime(run.startedAt)} UTC</dd>
      <dt>Duration</dt>
      <dd data-duration>${formatDuration(run.durationMs)}</dd>
      <dt>Status</dt>
      <dd>${statusBadge(run)}${prunedBadge(run)}</dd>
      ${
        run.processGone
          ? html`<dt>Why it stopped</dt>
              <dd>
                Its process ended before the run did (killed, or its machine stopped). Resume finishes it.
              </dd>`
          : ''
      }
      ${
        typeof run.options.aborted === 'string'
          ? html`<dt>Why it stopped</dt>
              <dd>${run.options.aborted}</dd>`
          : ''
      }
      ${
        data.retries.length > 0
          ? html`<dt>Retried by</dt>
              <dd>${data.retries.map((id) => html`<a href="${runPath(id)}">${id}</a> `)}</dd>`
          : ''
      }
    </dl>
    ${run.prunedNote ? html`<p class="note" data-pruned-note>${run.prunedNote}</p>` : ''}
    <div class="actions">
      ${failed > 0 && run.pruned === null ? html`<a class="button" href="${base}/retry">Retry failed rows…</a>` : ''}
      ${
        RESUMABLE.includes(run.status) && run.pruned === null
          ? html`<a
              class="button"
              href="${base}/resume"
              ${run.status === 'running' ? 'data-while-running' : ''}
              >Resume…</a
            >`
          : ''
      }
      <a class="button secondary" href="${base}/rerun">Run the job again…</a>
      <a class="button secondary" href="${base}/audit">Audit this job…</a>
    </div>
    <section id="live" ${run.status === 'running' ? '' : 'hidden'}>
      <h2>Progress <small data-rate></small></h2>
      <div data-phases>
        <div class="phase">
          <span>all intents</span><progress max="${run.planned ?? 0}" value="0"></progress
          ><span data-done></span>
        </div>
      </div>
    </section>
    <h2>Counts</h2>
    <div class="scroll">
      <table class="counts">
        <thead>
          <tr>
            <th>Kind</th>
            ${SHOWN_ACTIONS.map((action) => html`<th class="num">${action}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${(Object.keys(data.countsByKind) as IntentKind[]).map(
            (kind) =>
              html`<tr data-kind="${kind}">
                <td>${kind}</td>
                ${countCells(data.countsByKind[kind] ?? {})}
              </tr>`,
          )}
          <tr class="total" data-kind="all">
            <td>all</td>
            ${countCells(run.counts)}
          </tr>
        </tbody>
      </table>
    </div>
    ${
      skippedLine(data.skipped)
        ? html`<p class="note" data-skipped-split>${skippedLine(data.skipped)}</p>`
        : ''
    }
    ${errorsSection(data)}
    <section class="chart-box">
      <h2>Requests over the run</h2>
      <div id="chart" data-timeline="${base}/timeline"></div>
    </section>
    ${resultsSection(run.id, filter, page, run.prunedNote)}
  </div>`;
}

function errorsSection(data: RunData): Html {
  if (data.errors.length === 0) return html``;
  const base = runPath(data.run.id);
  return html`<section id="errors">
    <h2>Errors</h2>
    <div class="scroll">
      <table class="errors">
        <thead>
          <tr>
            <th class="num">Rows</th>
            <th>Code</th>
            <th>Message</th>
            <th>Meaning</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${data.errors.map(
            (group) =>
              html`<tr class="a-${group.action}">
                <td class="num">${group.count}</td>
                <td><code>${group.code}</code></td>
                <td class="msg">${group.message}</td>
                <td class="msg">${group.meaning ?? ''}</td>
                <td>
                  <a href="${base}/results${query({ status: group.action, code: group.code || undefined })}"
                    >${group.action} rows</a
                  >
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}
