import { html } from 'hono/html';
import type { ConferenceRecord } from '../../model/conference.js';
import { conferenceHost } from '../../model/conference.js';
import type { TombstoneRecord } from '../../ledger/ledger-erasure.js';
import type { Session } from '../dashboard-auth.js';
import type { DashboardForget } from '../person-forget.js';
import { csrfInput, type Html, rowPath, runPath, timeTag } from './page-layout.js';

/** What the ledger's counts of a scrub (and a tombstone's `removed`) mean, in the order shown. */
const REMOVED: ReadonlyArray<[string, string]> = [
  ['platform_users', 'platform user(s) removed from the conference'],
  ['results', 'result row(s) replaced with markers, params emptied'],
  ['planned_rows', 'planned row(s) replaced with markers'],
  ['unchanged_lists', 'list(s) of unchanged keys with their key replaced'],
  ['quoted_elsewhere', 'other row(s) quoting them: the quote replaced'],
  ['synced_state', 'synced key(s) dropped'],
  ['platform_ids', 'platform id(s) dropped from the id map'],
];

export const ERASURES_PATH = '/erasures';

export function erasurePath(id: number): string {
  return `${ERASURES_PATH}/${id}`;
}

/** The confirmation: the dry run's counts, a reason field and the button (CSRF form). */
export function forgetConfirmView(
  preview: DashboardForget,
  clientId: string,
  session: Session | undefined,
): Html {
  const { run, outcome, conference } = preview;
  const back = rowPath(run.id, 'user', clientId);
  return html`<p><a href="${back}">← user ${clientId}</a></p>
    <h1>Forget this person</h1>
    <p>
      Erases the person of this row from ${conference} (GDPR Art. 17), as <code>evsync forget</code> does. The
      ledger knows them by ${outcome.found.clientIds} client_id(s) and ${outcome.found.emails} e-mail(s); all
      of them are forgotten.
      ${
        outcome.found.otherPeople > 0
          ? html`Rows of ${outcome.found.otherPeople} other person(s) use a client_id of theirs (a ticket
            handed on, a key reused): those are not this person, and are left as they are.`
          : ''
      }
    </p>
    <h2>What will be removed</h2>
    <ul class="removed">
      ${
        outcome.platformRemoved.length > 0
          ? html`<li>
              The platform user ${outcome.platformRemoved.join(', ')}, removed from the conference (DELETE
              /user/member/{id}), and with it, as the platform does, their speaker links, schedule and
              contacts.
            </li>`
          : html`<li>No platform user: the platform has none of that e-mail or id in this conference.</li>`
      }
      ${REMOVED.filter(([name]) => name !== 'platform_users').map(
        ([name, label]) => html`<li>${outcome.scrubbed[name] ?? 0} ${label}</li>`,
      )}
    </ul>
    <p class="note">
      Run history and counts stay whole. A tombstone of keyed hashes (no e-mail or name in clear) is kept, and
      every later run, plan and audit suppresses rows naming them. It cannot be undone here:
      <code>evsync forget --undo</code> with one of their e-mails or client_ids lifts it.
    </p>
    <form method="post" action="${runPath(run.id)}/forget" class="confirm forget">
      ${csrfInput(session)}
      <input type="hidden" name="client_id" value="${clientId}" />
      <label
        >Reason (optional, no personal data: e.g. “request 2026-114”)
        <input type="text" name="reason" maxlength="500" />
      </label>
      <button data-confirm="Forget this person in ${conference}? This cannot be undone from the dashboard.">
        Forget this person
      </button>
      <a href="${back}">Cancel</a>
    </form>`;
}

/** One erasure, after it was made: what it removed and where the row is now. */
export function erasureView(
  tombstone: TombstoneRecord,
  conference: string,
  after: { runId?: string | undefined; marker?: string | undefined; redisNote?: string | undefined },
): Html {
  return html`<p><a href="${ERASURES_PATH}">← erasures</a></p>
    <h1>Erasure #${tombstone.id}</h1>
    <dl class="facts">
      <dt>Conference</dt>
      <dd>${conference}</dd>
      <dt>Date</dt>
      <dd>${timeTag(tombstone.createdAt)}</dd>
      <dt>Reason</dt>
      <dd>${tombstone.reason ?? '—'}</dd>
      <dt>Ran by</dt>
      <dd>${tombstone.erasedBy}</dd>
      <dt>Identifiers held</dt>
      <dd>${tombstone.identifiers} (keyed hashes)</dd>
      ${
        tombstone.liftedAt
          ? html`<dt>Lifted</dt>
              <dd>${timeTag(tombstone.liftedAt)} by ${tombstone.liftedBy ?? '—'}</dd>`
          : ''
      }
    </dl>
    <h2>What was removed</h2>
    <ul class="removed">
      ${REMOVED.map(([name, label]) => html`<li>${countOf(tombstone.removed[name])} ${label}</li>`)}
    </ul>
    ${after.redisNote ? html`<p class="note">${after.redisNote}</p>` : ''}
    ${
      after.runId && after.marker
        ? html`<p class="actions">
            <a class="button secondary" href="${rowPath(after.runId, 'user', after.marker)}">The row now</a>
            <a href="${runPath(after.runId)}">run ${after.runId}</a>
          </p>`
        : ''
    }`;
}

/** Every tombstone: no personal data, only dates, reasons, who and counts. */
export function erasuresView(
  tombstones: readonly TombstoneRecord[],
  conferences: readonly ConferenceRecord[],
): Html {
  return html`<h1>Erasures</h1>
    <p class="note">
      The people forgotten (“Forget this person…” on a user row, or <code>evsync forget</code>). Each
      tombstone holds only keyed hashes of their e-mails and client_ids: later runs suppress rows naming them.
    </p>
    ${
      tombstones.length === 0
        ? html`<p>No one has been forgotten.</p>`
        : html`<div class="scroll">
            <table class="erasures">
              <thead>
                <tr>
                  <th>#</th>
                  <th>Date</th>
                  <th>Conference</th>
                  <th>Reason</th>
                  <th>Ran by</th>
                  <th class="num">Identifiers</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                ${tombstones.map(
                  (t) =>
                    html`<tr>
                      <td data-label="#"><a href="${erasurePath(t.id)}">${t.id}</a></td>
                      <td data-label="Date">${timeTag(t.createdAt)}</td>
                      <td data-label="Conference">${conferenceName(t.conferenceId, conferences)}</td>
                      <td data-label="Reason">${t.reason ?? '—'}</td>
                      <td data-label="Ran by">${t.erasedBy}</td>
                      <td class="num" data-label="Identifiers">${t.identifiers}</td>
                      <td data-label="State">
                        ${t.liftedAt ? html`lifted ${timeTag(t.liftedAt)}` : 'in force'}
                      </td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }`;
}

/** A tombstone's conference as people see it; 0 is the ledger as a whole (before conferences). */
export function conferenceName(id: number, conferences: readonly ConferenceRecord[]): string {
  const found = conferences.find((conference) => conference.id === id);
  return found ? conferenceHost(found.baseUrl) : 'the ledger';
}

function countOf(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}
