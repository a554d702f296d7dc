// The e-mail's HTML escapes as XHTML attribute values are: quotes too.
import { escapeXmlAttribute as escape } from '../../mapping/transforms/xhtml-text.js';
import { countLines, noticeSubject, runLine, type Notice } from './notice-message.js';

/**
 * Inline styles only: mail clients drop `<style>` blocks and web fonts. The system's own
 * font stack, as GitHub's and Stripe's notification mails use it.
 */
const FONT = "font-family:-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const CODE_STYLE =
  'font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f4f6;padding:1px 4px;border-radius:3px';

/** Escaped text in which `backticked` parts become `<code>`: no literal backticks in the mail. */
function rich(text: string): string {
  return text
    .split(/`([^`]+)`/)
    .map((part, index) =>
      index % 2 === 1 ? `<code style="${CODE_STYLE}">${escape(part)}</code>` : escape(part),
    )
    .join('');
}

/** The message as HTML, for the e-mail: the same words as the text, cause and what to do first. */
export function noticeHtml(notice: Notice): string {
  const problem = notice.event === 'problem';
  const colour = problem ? '#b91c1c' : '#15803d';
  const list = (items: string[]): string =>
    items.length === 0 ? '' : `<ul style="margin:4px 0 12px;padding-left:20px">${items.join('')}</ul>`;
  const lead = problem
    ? [
        `<p style="margin:0 0 8px"><strong>What happened:</strong> ${rich(notice.cause.text)}</p>`,
        notice.cause.action
          ? `<p style="margin:0 0 12px"><strong>What to do:</strong> ${rich(notice.cause.action)}</p>`
          : '',
      ]
    : [
        '<p style="margin:0 0 8px">No rule of its notify: settings holds any more.</p>',
        notice.missed
          ? `<p style="margin:0 0 8px"><strong>Missed meanwhile:</strong> ${rich(notice.missed)}.</p>`
          : '',
        notice.left ? `<p style="margin:0 0 12px">${rich(notice.left)}</p>` : '',
        `<p style="margin:0">Until now (${escape(notice.cause.title)}):</p>`,
        list(notice.problems.map((p) => `<li>${rich(p.text)}</li>`)),
      ];
  const others = problem ? notice.problems.filter((p) => p.text !== notice.cause.text) : [];
  const errors = notice.errors.map(
    (e) =>
      `<li><strong>${e.count} × <code style="${CODE_STYLE}">${escape(e.code)}</code></strong>: ${rich(e.message)}` +
      `<br><small style="color:#555">${rich(e.meaning)}</small></li>`,
  );
  const run = runLine(notice);
  return [
    `<div style="${FONT};font-size:15px;line-height:1.45;color:#1f2937;max-width:640px">`,
    `<h2 style="margin:0 0 12px;font-size:18px;color:${colour}">${escape(noticeSubject(notice))}</h2>`,
    ...lead,
    others.length > 0
      ? `<p style="margin:0">Also:</p>${list(others.map((p) => `<li>${rich(p.text)}</li>`))}`
      : '',
    notice.conference ? `<p style="margin:0 0 4px">Conference: ${escape(notice.conference)}</p>` : '',
    run ? `<p style="margin:0 0 12px">${escape(run)}</p>` : '',
    countLines(notice.counts).length > 0
      ? `<p style="margin:0">Results:</p>${list(countLines(notice.counts).map((line) => `<li>${escape(line)}</li>`))}`
      : '',
    errors.length > 0 ? `<p style="margin:0">Errors:</p>${list(errors)}` : '',
    notice.link
      ? `<p><a href="${escape(notice.link)}" style="color:#1d4ed8">Open the run on the dashboard</a></p>`
      : '',
    '</div>',
  ]
    .filter((part) => part !== '')
    .join('\n');
}
