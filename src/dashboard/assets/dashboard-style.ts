/**
 * The dashboard's one style sheet: readable on a laptop; on a phone (under 640 px) each
 * table row is a stack of its cells, each labelled by its `data-label`, so no column is off
 * screen.
 */
export const DASHBOARD_STYLE = `
:root { --ok: #1e7d3a; --bad: #c0392b; --warn: #a86b00; --partial: #9a3d00; --muted: #666; --line: #ddd; font-family: system-ui, sans-serif; }
body { margin: 0; color: #222; background: #fafafa; }
header.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #223; color: #fff; flex-wrap: wrap; }
header.top a { color: #fff; text-decoration: none; }
header.top nav { display: flex; gap: .25rem 1rem; flex: 1; flex-wrap: wrap; }
header.top nav a { white-space: nowrap; }
.brand { font-weight: 700; }
main { padding: 1rem; max-width: 1400px; margin: 0 auto; }
h1 { font-size: 1.4rem; word-break: break-all; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; min-width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f4; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
/* Fifteen columns: tighter, so that the failed count stays on a laptop's screen. */
table.runs th, table.runs td { padding: .35rem .3rem; }
/* A run id and a start time on one line: number columns give way first (issue #40 item 2). */
table.runs { font-size: .8rem; }
table.runs td[data-label=Run] a, table.runs td[data-label=Started] { white-space: nowrap; }
table.runs .badge { white-space: normal; }
table.runs th.num, table.runs td.num { padding-left: .15rem; padding-right: .15rem; }
td.bad { color: var(--bad); font-weight: 700; }
td.msg { max-width: 40rem; overflow-wrap: anywhere; }
.badge { white-space: nowrap; display: inline-block; padding: .05rem .45rem; border-radius: .8rem; font-size: .8rem; background: #e8e8ee; }
.s-completed, .a-created, .a-updated, .a-attached, .a-unchanged { background: #dff3e4; color: var(--ok); }
.s-running { background: #e1ecfb; color: #2f6fdf; }
.s-failed, .s-aborted, .a-failed { background: #fbe3e0; color: var(--bad); }
.s-interrupted, .s-cut-off, .a-skipped { background: #fdf0d5; color: var(--warn); }
/* Completed, but rows failed: not a success's green, nor a stopped run's amber. */
.s-completed-failed { background: #ffe0cc; color: var(--partial); border: 1px solid #f0a070; }
tr.a-failed td:first-child { border-left: 3px solid var(--bad); }
tr.a-created td:first-child, tr.a-updated td:first-child, tr.a-attached td:first-child { border-left: 3px solid var(--ok); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.next-step { margin: -.5rem 0 1rem; color: #333; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin: 1rem 0; }
/* A retry's answer lists each row not sent on a line of its own. */
p.what { white-space: pre-line; }
a.button, button { display: inline-block; padding: .45rem .9rem; border: 1px solid #2f6fdf; border-radius: .3rem; background: #2f6fdf; color: #fff; text-decoration: none; font: inherit; cursor: pointer; }
a.button.secondary { background: #fff; color: #2f6fdf; }
button.link { background: none; border: none; color: #fff; padding: 0; }
form.inline { display: inline; }
form.filters { display: flex; gap: .75rem; flex-wrap: wrap; align-items: end; margin-bottom: .75rem; }
form.filters label, form.login label { display: flex; flex-direction: column; font-size: .85rem; color: var(--muted); }
input, select { font: inherit; padding: .3rem; }
.downloads { margin-left: auto; }
.pager { display: flex; gap: 1rem; margin: .75rem 0; }
.phase { display: grid; grid-template-columns: 8rem 1fr 12rem; gap: .5rem; align-items: center; }
.phase progress { width: 100%; }
.problem { color: var(--bad); font-weight: 600; }
.note { color: var(--muted); font-size: .85rem; }
#chart { min-height: 60px; background: #fff; }
form.login { display: flex; flex-direction: column; gap: .75rem; max-width: 22rem; padding: 1.25rem; background: #fff;
  border: 1px solid var(--line); border-radius: .5rem; box-shadow: 0 1px 4px rgba(0, 0, 0, .08); }
form.login input { width: 100%; box-sizing: border-box; }
form.login button { align-self: flex-start; }
ul.jobs { list-style: none; padding: 0; margin: 0 0 1.5rem; display: grid; gap: .5rem; }
ul.jobs li { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--ok); border-radius: .3rem; padding: .5rem .75rem; }
ul.jobs li.j-problem { border-left-color: var(--bad); }
ul.jobs li.j-partial { border-left-color: var(--partial); }
ul.jobs li.j-stopped { border-left-color: var(--warn); }
ul.jobs .job-name { font-weight: 700; margin-right: .5rem; }
ul.jobs .job-facts { color: var(--muted); font-size: .85rem; }
ul.jobs .overdue, ul.jobs .undelivered { color: var(--bad); font-weight: 600; }
@media (max-width: 640px) {
  main { padding: .5rem; }
  /* Brand, Runs, Erasures, Queue, Bull Board and Log out on one row at 390 px (they wrapped). */
  header.top { gap: .5rem; padding: .6rem .6rem; font-size: .875rem; }
  header.top nav { gap: .25rem .6rem; }
  /* Tables become stacked rows: each cell on its own line, its column's name before it. */
  table, thead, tbody, tr, th, td { display: block; }
  table { min-width: 0; width: 100%; }
  thead { display: none; }
  tr { border-bottom: 2px solid var(--line); padding: .25rem 0; }
  th, td { border-bottom: none; text-align: left; overflow-wrap: anywhere; white-space: normal; }
  td.num, th.num { text-align: left; }
  /* Beats \`table.runs td\`'s padding (its specificity is higher than \`td[data-label]\`'s). */
  table td[data-label], table.runs td[data-label] { position: relative; padding-left: 8.5rem; min-height: 1.2em; }
  table.runs td[data-label=Run] a { white-space: normal; overflow-wrap: anywhere; }
  td[data-label]::before { content: attr(data-label); position: absolute; left: .5rem; width: 7.5rem;
    color: var(--muted); font-weight: 600; overflow-wrap: anywhere; }
  table td[data-label=""], table.runs td[data-label=""] { padding-left: .5rem; }
  td.msg { max-width: none; }
  tr.a-failed td:first-child, tr.a-created td:first-child, tr.a-updated td:first-child, tr.a-attached td:first-child { border-left: none; }
  tr.a-failed { border-left: 3px solid var(--bad); }
  .phase { grid-template-columns: 5rem 1fr; }
  .phase span:last-child { grid-column: 1 / -1; }
  .downloads { margin-left: 0; }
}
`;
