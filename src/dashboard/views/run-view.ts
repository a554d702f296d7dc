import { html } from 'hono/html';
import type { IntentKind } from '../../model/intent.js';
import { shownStatus, type RunData } from '../dashboard-data.js';
import type { ResultsPage, ResultsQuery } from '../dashboard-results.js';
import { nextStep, type RunStep } from '../run-next-step.js';
import { formatDuration, type Html, query, runPath, timeTag } from './page-layout.js';
import { resultsSection } from './results-view.js';
import { skippedLine } from '../../sync/plan/plan-summary.js';
import { countCells, notRecorded, prunedBadge, SHOWN_ACTIONS, statusBadge } from './runs-view.js';

export function runView(data: RunData, filter: ResultsQuery, page: ResultsPage): Html {
  const { run } = data;
  const base = runPath(run.id);
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
      <dd>${timeTag(run.startedAt)}</dd>
      <dt>Duration</dt>
      <dd data-duration>${formatDuration(run.durationMs)}${run.durationNote}</dd>
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
    ${actionsSection(data)}
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
                <td data-label="Kind">${kind}</td>
                ${countCells(data.countsByKind[kind] ?? {})}
              </tr>`,
          )}
          <tr class="total" data-kind="all">
            <td data-label="Kind">all</td>
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
      <h2>Platform calls over the run</h2>
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
                <td class="num" data-label="Rows">${group.count}</td>
                <td data-label="Code"><code>${group.code}</code></td>
                <td class="msg" data-label="Message">
                  ${group.example}${
                    // The rows' shared pattern (numbers as N: "row N (line N), N-N-N N:N")
                    // read as noise: a count says it, the rows link shows them.
                    group.count > 1
                      ? html`<br /><small class="note" data-pattern
                            >and ${group.count - 1} more like it</small
                          >`
                      : ''
                  }
                </td>
                <td class="msg" data-label="Meaning">${group.meaning ?? ''}</td>
                <td data-label="">
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

const STEP_BUTTONS: Record<Exclude<RunStep, 'wait'>, { path: string; label: string }> = {
  retry: { path: 'retry', label: 'Retry failed rows…' },
  resume: { path: 'resume', label: 'Resume…' },
  rerun: { path: 'rerun', label: 'Run the job again…' },
};

/**
 * The run's buttons, the one its state calls for first (`nextStep`), and the line saying
 * which to use. `#actions` is what the page's script reloads when a live run ends. A run
 * going on offers no run of its job again: the job's lock refuses one (409) until it ends.
 */
export function actionsSection(data: Pick<RunData, 'run'>): Html {
  const { run } = data;
  const base = runPath(run.id);
  const step = nextStep(run);
  const button = (which: Exclude<RunStep, 'wait'>) =>
    html`<a
      class="button${step.primary === which ? '' : ' secondary'}"
      href="${base}/${STEP_BUTTONS[which].path}"
      data-step="${which}"
      >${STEP_BUTTONS[which].label}</a
    >`;
  return html`<section id="actions" data-actions="${base}" data-primary="${step.primary}">
    <div class="actions">
      ${step.retry ? button('retry') : ''} ${step.resume ? button('resume') : ''}
      ${step.primary === 'wait' ? '' : button('rerun')}
      <a class="button secondary" href="${base}/audit">Audit this job…</a>
    </div>
    <p class="next-step" data-next-step>${step.advice}</p>
  </section>`;
}
