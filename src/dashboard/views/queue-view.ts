import { html } from 'hono/html';
import type { QueueStatus } from '../../distributed/queue-status.js';
import { describeLanes, describeWorker } from '../../distributed/queue-status-text.js';
import { runConferenceHost } from '../../model/conference.js';
import { type Html, runPath, timeTag } from './page-layout.js';

export function queueView(status: QueueStatus): Html {
  const { jobs } = status;
  return html`<h1>Queue <code>${status.prefix}</code></h1>
    <dl class="facts">
      <dt>Redis</dt>
      <dd>${status.redis}</dd>
      <dt>Intents</dt>
      <dd>
        ${jobs.waiting} waiting, ${jobs.active} active, ${jobs.delayed} delayed (retrying), ${jobs.failed}
        failed
      </dd>
      <dt>Workers</dt>
      <dd>
        ${
          status.workers.length === 0
            ? 'none connected'
            : html`<ul>
                ${status.workers.map((worker) => html`<li>${describeWorker(worker)}</li>`)}
              </ul>`
        }
      </dd>
      <dt>Lanes</dt>
      <dd>
        <ul>
          ${describeLanes(status).map((line) => html`<li>${line}</li>`)}
        </ul>
      </dd>
    </dl>
    <h2>Runs in progress</h2>
    ${
      status.runs.length === 0
        ? html`<p>None.</p>`
        : html`<ul>
            ${status.runs.map(
              ({ run, done, planned, phase }) =>
                html`<li>
                  <a href="${runPath(run.id)}">${run.id}</a> ${run.jobName}
                  (${runConferenceHost(run) ?? 'conference not recorded'}):
                  ${done}${planned === undefined ? '' : ` of ${planned}`} intents
                  done${phase ? `; phase ${phase.phase}: ${phase.done} of ${phase.total}` : ''}
                </li>`,
            )}
          </ul>`
    }
    <h2>Schedules</h2>
    ${
      status.schedules.length === 0
        ? html`<p>None. Register one with <code>evsync schedule JOB.yaml</code>.</p>`
        : html`<table>
            <thead>
              <tr>
                <th>Job</th>
                <th>Cron</th>
                <th>Time zone</th>
                <th>Next</th>
                <th>Job file</th>
              </tr>
            </thead>
            <tbody>
              ${status.schedules.map(
                (info) =>
                  html`<tr>
                    <td data-label="Job">${info.name}</td>
                    <td data-label="Cron"><code>${info.cron}</code></td>
                    <td data-label="Time zone">${info.timezone}</td>
                    <td data-label="Next">${info.next ? timeTag(info.next) : 'not planned'}</td>
                    <td data-label="Job file">${info.jobFile}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
    <p><a href="/queues">Bull Board</a> shows the queue's jobs (read-only).</p>`;
}
