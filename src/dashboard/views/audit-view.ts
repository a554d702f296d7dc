import { html } from 'hono/html';
import { AUDIT_KIND_ORDER } from '../../sync/audit/audit-job.js';
import { auditVerdict } from '../../sync/audit/audit-verdict.js';
import type { KindAudit } from '../../sync/audit/drift.js';
import type { DashboardAudit } from '../job-audits.js';
import { type Html, runPath, timeTag } from './page-layout.js';

const ALL_COLUMNS: readonly (keyof KindAudit)[] = [
  'in_sync',
  'missing',
  'changed',
  'another_person',
  'extra',
  'not_synced',
  'not_auditable',
];

export function auditPath(auditId: string): string {
  return `/audits/${encodeURIComponent(auditId)}`;
}

/**
 * An audit's status, its table per kind and its drift entries, as `evsync audit` prints
 * them (docs/audit.md). While it reads, the page reloads itself every second: a
 * `<meta>` refresh, since the CSP allows no inline script.
 */
export function auditView(audit: DashboardAudit): Html {
  const summary = audit.summary ?? {};
  const kinds = AUDIT_KIND_ORDER.filter((kind) => summary[kind] !== undefined);
  const notAuditable = kinds.filter((kind) => (summary[kind]?.not_auditable ?? 0) > 0);
  // `another person` only when found: it is rare, and the table stays narrow.
  const COLUMNS = ALL_COLUMNS.filter(
    (column) => column !== 'another_person' || kinds.some((kind) => (summary[kind]?.another_person ?? 0) > 0),
  );
  return html`${audit.status === 'running' ? html`<meta http-equiv="refresh" content="1" />` : ''}
    <div id="audit" data-audit="${audit.id}" data-status="${audit.status}">
      <h1>Audit of ${audit.jobName}</h1>
      <dl class="facts">
        <dt>Job</dt>
        <dd>${audit.jobName} (${audit.file})</dd>
        <dt>From run</dt>
        <dd><a href="${runPath(audit.runId)}">${audit.runId}</a></dd>
        <dt>Started</dt>
        <dd>${timeTag(audit.startedAt)}</dd>
        <dt>Status</dt>
        <dd>
          <span class="badge s-${audit.status === 'finished' ? 'completed' : audit.status}"
            >${audit.status}</span
          >
        </dd>
        <dt>Verdict</dt>
        <dd data-verdict>${verdict(audit)}</dd>
        ${
          audit.repairRunId
            ? html`<dt>Repaired by</dt>
                <dd><a href="${runPath(audit.repairRunId)}" data-repair-run>${audit.repairRunId}</a></dd>`
            : ''
        }
      </dl>
      ${
        audit.error
          ? html`<p class="problem">${audit.error.message}</p>
              ${audit.error.code ? html`<p><code>${audit.error.code}</code></p>` : ''}`
          : ''
      }
      ${
        audit.status === 'finished' && audit.repairable && !audit.repairRunId
          ? html`<div class="actions">
              <a class="button" href="${auditPath(audit.id)}/repair">Repair…</a>
            </div>`
          : ''
      }
      ${
        kinds.length > 0
          ? html`<h2>Summary</h2>
              <div class="scroll">
                <table class="counts audit">
                  <thead>
                    <tr>
                      <th>Kind</th>
                      ${COLUMNS.map((column) => html`<th class="num">${column.replace('_', ' ')}</th>`)}
                    </tr>
                  </thead>
                  <tbody>
                    ${kinds.map(
                      (kind) =>
                        html`<tr data-kind="${kind}">
                          <td data-label="Kind">${kind}</td>
                          ${COLUMNS.map((column) => countCell(column, summary[kind]![column]))}
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
          : ''
      }
      ${
        notAuditable.length > 0
          ? html`<p class="note">
              Not auditable: ${notAuditable.join(', ')} (the API gives no read for them, so they are not
              compared).
            </p>`
          : ''
      }
      ${driftSection(audit)}
    </div>`;
}

/** One count of the summary, labelled for a phone: its text is the number alone. */
function countCell(column: string, count: number | undefined): Html {
  const label = column.replace('_', ' ');
  return html`<td class="num" data-label="${label}" data-count="${column}">${count}</td>`;
}

function driftSection(audit: DashboardAudit): Html {
  if (audit.driftCount === 0) return html``;
  return html`<section id="drift">
    <h2>Drift</h2>
    <div class="scroll">
      <table class="results drift">
        <thead>
          <tr>
            <th>Kind</th>
            <th>Key</th>
            <th>Type</th>
            <th>Fields</th>
            <th class="num">Platform id</th>
            <th>Detail</th>
          </tr>
        </thead>
        <tbody>
          ${audit.drift.map(
            (entry) =>
              html`<tr class="d-${entry.type}" data-kind="${entry.kind}" data-type="${entry.type}">
                <td data-label="Kind">${entry.kind}</td>
                <td data-label="Key"><code>${entry.key}</code></td>
                <td data-label="Type">${entry.type}</td>
                <td data-label="Fields">${entry.fields.join(' ')}</td>
                <td class="num" data-label="Platform id">${entry.platform_id ?? ''}</td>
                <td class="msg" data-label="Detail">${entry.detail}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${
      audit.driftCount > audit.drift.length
        ? html`<p class="note" data-cut>
            The first ${audit.drift.length} of ${audit.driftCount} entries: \`evsync audit ${audit.file}
            --report FILE\` writes them all.
          </p>`
        : ''
    }
  </section>`;
}

function verdict(audit: DashboardAudit): string {
  if (audit.status === 'running') return 'reading the platform back…';
  if (audit.status === 'failed') return 'the audit failed: nothing was compared.';
  // The words `evsync audit` prints: what was compared, and what could not be.
  return auditVerdict(audit.summary ?? {});
}
