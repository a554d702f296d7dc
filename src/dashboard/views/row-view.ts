import { html } from 'hono/html';
import { isErasureMarker } from '../../model/erasure.js';
import { describeOrigin, isLookupKey } from '../../model/row-origin.js';
import type { Session } from '../dashboard-auth.js';
import type { RowData } from '../dashboard-results.js';
import { csrfInput, formatDuration, type Html, rowPath, runPath, timeTag } from './page-layout.js';

export function rowView(data: RowData, session: Session | undefined): Html {
  const { result } = data;
  const base = runPath(result.runId);
  // A row evsync rejected itself (invalid, skipped) made no call: nothing of it was sent.
  const sent = result.attempts > 0 || result.httpStatus !== null;
  return html`<p><a href="${base}">← run ${result.runId}</a></p>
    <h1>${result.kind} <code>${result.key}</code></h1>
    <dl class="facts">
      <dt>Action</dt>
      <dd><span class="badge a-${result.action}">${result.action}</span></dd>
      <dt>Origin</dt>
      <dd>${result.origin ? html`${result.origin.source}, ${describeOrigin(result.origin)}` : '—'}</dd>
      <dt>Platform id</dt>
      <dd>${data.platformId ?? '—'}</dd>
      <dt>Recorded</dt>
      <dd>${timeTag(result.recordedAt)}</dd>
      ${
        result.worker
          ? html`<dt>Worker</dt>
              <dd>${result.worker}</dd>`
          : ''
      }
    </dl>
    <h2>Attempts</h2>
    <p class="note">The ledger keeps the final attempt's answer and how many attempts were made.</p>
    <div class="scroll">
      <table class="attempts">
        <thead>
          <tr>
            <th class="num">Attempts</th>
            <th class="num">HTTP status</th>
            <th>Code</th>
            <th>${sent ? "Platform's message" : 'Message'}</th>
            <th class="num">Time</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td class="num" data-label="Attempts">${result.attempts}</td>
            <td class="num" data-label="HTTP status">${result.httpStatus ?? '—'}</td>
            <td data-label="Code"><code>${result.errorCode ?? ''}</code></td>
            <td class="msg" data-label="${sent ? "Platform's message" : 'Message'}">
              ${result.errorMessage ?? ''}
            </td>
            <td class="num" data-label="Time">${formatDuration(result.durationMs)}</td>
          </tr>
        </tbody>
      </table>
    </div>
    ${
      result.action === 'failed' && !isLookupKey(result.key)
        ? html`<p class="note">
              A retry cannot find this row again in the source: it has no client_id, or repeats another row’s.
              Fix it there, then run the job again.
            </p>
            <p class="actions"><a class="button" href="${base}/rerun">Run the job again…</a></p>`
        : ''
    }
    ${
      result.action === 'failed' && isLookupKey(result.key)
        ? html`<form method="post" action="${base}/retry" class="confirm">
            ${csrfInput(session)} <input type="hidden" name="kind" value="${result.kind}" /><input
              type="hidden"
              name="client_id"
              value="${result.key}"
            />
            <p>Retry sends this row again as a new run (with the rows skipped because it failed).</p>
            <button data-confirm="Retry ${result.kind} ${result.key} as a new run?">Retry this row</button>
          </form>`
        : ''
    }
    ${
      result.kind === 'user' && isLookupKey(result.key) && !isErasureMarker(result.key)
        ? html`<p class="actions">
            <a class="button secondary" href="${base}/forget?client_id=${encodeURIComponent(result.key)}"
              >Forget this person…</a
            >
          </p>`
        : ''
    }
    ${
      isErasureMarker(result.key)
        ? html`<p class="note">
            This row names a person who was forgotten (<a href="/erasures">erasures</a>): its key is a marker,
            its params and message are gone.
          </p>`
        : ''
    }
    <h2>${sent ? 'Params sent' : 'Params (not sent: evsync rejected the row before any call)'}</h2>
    ${
      Object.keys(result.params).length === 0
        ? html`<p>None recorded.</p>`
        : html`<div class="scroll">
            <table class="params">
              <tbody>
                ${Object.entries(result.params).map(
                  ([name, value]) =>
                    html`<tr>
                      <th>${name}</th>
                      <td class="msg">${value}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <h2>History of this client_id</h2>
    <div class="scroll">
      <table class="history">
        <thead>
          <tr>
            <th>Run</th>
            <th>Job</th>
            <th>Started</th>
            <th>Action</th>
            <th>Code</th>
            <th>Message</th>
          </tr>
        </thead>
        <tbody>
          ${data.history.map(
            (entry) =>
              html`<tr class="a-${entry.result.action}">
                <td data-label="Run">
                  <a href="${rowPath(entry.result.runId, entry.result.kind, entry.result.key)}"
                    >${entry.result.runId}</a
                  >
                </td>
                <td data-label="Job">${entry.jobName}</td>
                <td data-label="Started">${timeTag(entry.runStartedAt)}</td>
                <td data-label="Action">
                  <span class="badge a-${entry.result.action}">${entry.result.action}</span>
                </td>
                <td data-label="Code"><code>${entry.result.errorCode ?? ''}</code></td>
                <td class="msg" data-label="Message">${entry.result.errorMessage ?? ''}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
}
