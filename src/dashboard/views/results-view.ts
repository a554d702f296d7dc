import { html } from 'hono/html';
import { INTENT_KINDS } from '../../model/intent.js';
import { describeOrigin } from '../../model/row-origin.js';
import { RESULT_ACTIONS } from '../../model/result-records.js';
import { failedFirst, type ResultsPage, type ResultsQuery } from '../dashboard-results.js';
import { type Html, query, rowPath, runPath } from './page-layout.js';

/**
 * A run's results: the filter form, one page of the table, and the link to the next page
 * (keyset: `after` is the last `seq` shown). `#results` is what the live script reloads.
 */
export function resultsSection(
  runId: string,
  filter: ResultsQuery,
  page: ResultsPage,
  /** A pruned run's note: said above its results, most of which are gone. */
  prunedNote: string | null = null,
): Html {
  const base = runPath(runId);
  const keep = { status: filter.status, kind: filter.kind, code: filter.code, q: filter.q };
  const next = { ...keep, after: page.next ?? undefined, rest: page.rest ? 1 : undefined };
  const nextHref = `${base}/results${query(next)}`;
  return html`<section id="results" data-results="${`${base}/results${query(keep)}`}">
    <h2>Results</h2>
    ${failedFirst(filter) ? html`<p class="note" data-failed-first>Failed rows first, then the others in the order they were recorded.</p>` : ''}
    ${prunedNote ? html`<p class="note" data-pruned-results>${prunedNote}</p>` : ''}
    <form method="get" action="${base}/results" class="filters">
      <label
        >Action
        <select name="status">
          <option value="">any</option>
          ${RESULT_ACTIONS.map((action) => html`<option ${filter.status === action ? 'selected' : ''}>${action}</option>`)}
        </select></label
      >
      <label
        >Kind
        <select name="kind">
          <option value="">any</option>
          ${INTENT_KINDS.map((kind) => html`<option ${filter.kind === kind ? 'selected' : ''}>${kind}</option>`)}
        </select></label
      >
      ${filter.code ? html`<input type="hidden" name="code" value="${filter.code}" />` : ''}
      <label
        >Search <input type="search" name="q" value="${filter.q ?? ''}" placeholder="client_id, e-mail, name"
      /></label>
      <button>Filter</button>
      ${filter.code ? html`<span>code <code>${filter.code}</code> (<a href="${base}/results${query({ ...keep, code: undefined })}">any code</a>)</span>` : ''}
      <span class="downloads"
        >Download
        <a
          href="${base}/results${query({ status: filter.status, kind: filter.kind, code: filter.code, format: 'csv' })}"
          >CSV</a
        >
        ·
        <a
          href="${base}/results${query({ status: filter.status, kind: filter.kind, code: filter.code, format: 'json' })}"
          >JSON</a
        ></span
      >
    </form>
    ${
      page.results.length === 0
        ? page.next !== null && filter.q
          ? html`<p data-search-on="${`${base}/results${query({ ...keep, after: page.next })}`}">
              No match in the results read so far: searching on…
            </p>`
          : html`<p>No results match.</p>`
        : html`<div class="scroll">
            <table class="results">
              <thead>
                <tr>
                  <th>Kind</th>
                  <th>client_id</th>
                  <th>Action</th>
                  <th>Origin</th>
                  <th class="num">HTTP</th>
                  <th>Code</th>
                  <th>Message</th>
                  <th class="num">Attempts</th>
                </tr>
              </thead>
              <tbody>
                ${page.results.map(
                  (result) =>
                    html`<tr class="a-${result.action}" data-key="${result.key}">
                      <td data-label="Kind">${result.kind}</td>
                      <td data-label="client_id">
                        <a href="${rowPath(runId, result.kind, result.key)}">${result.key}</a>
                      </td>
                      <td data-label="Action">
                        <span class="badge a-${result.action}">${result.action}</span>
                      </td>
                      <td data-label="Origin">
                        ${result.origin ? html`${result.origin.source} ${describeOrigin(result.origin)}` : ''}
                      </td>
                      <td class="num" data-label="HTTP">${result.httpStatus ?? ''}</td>
                      <td data-label="Code"><code>${result.errorCode ?? ''}</code></td>
                      <td class="msg" data-label="Message">${result.errorMessage ?? ''}</td>
                      <td class="num" data-label="Attempts">${result.attempts}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <nav class="pager">
      ${filter.after || filter.rest ? html`<a href="${base}/results${query(keep)}">First page</a>` : ''}
      ${page.next !== null ? html`<a rel="next" href="${nextHref}">Next page →</a>` : ''}
    </nav>
  </section>`;
}

/** The results page: a link back to the run over the results section. */
export function resultsPageView(runId: string, section: Html): Html {
  return html`<p><a href="${runPath(runId)}">← run ${runId}</a></p>
    <h1>Results of run ${runId}</h1>
    ${section}`;
}
