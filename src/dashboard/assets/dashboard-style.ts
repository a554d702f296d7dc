/** The dashboard's one style sheet: readable on a laptop, tables scroll sideways on a phone. */
export const DASHBOARD_STYLE = `
:root { --ok: #1e7d3a; --bad: #c0392b; --warn: #a86b00; --muted: #666; --line: #ddd; font-family: system-ui, sans-serif; }
body { margin: 0; color: #222; background: #fafafa; }
header.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; background: #223; color: #fff; flex-wrap: wrap; }
header.top a { color: #fff; text-decoration: none; }
header.top nav { display: flex; gap: 1rem; flex: 1; }
.brand { font-weight: 700; }
main { padding: 1rem; max-width: 1400px; margin: 0 auto; }
h1 { font-size: 1.4rem; word-break: break-all; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; background: #fff; min-width: 100%; font-size: .9rem; }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f4; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.bad { color: var(--bad); font-weight: 700; }
td.msg { max-width: 40rem; overflow-wrap: anywhere; }
.badge { display: inline-block; padding: .05rem .45rem; border-radius: .8rem; font-size: .8rem; background: #e8e8ee; }
.s-completed, .a-created, .a-updated, .a-attached, .a-unchanged { background: #dff3e4; color: var(--ok); }
.s-running { background: #e1ecfb; color: #2f6fdf; }
.s-failed, .s-aborted, .a-failed { background: #fbe3e0; color: var(--bad); }
.s-interrupted, .s-cut-off, .a-skipped { background: #fdf0d5; color: var(--warn); }
tr.a-failed td:first-child { border-left: 3px solid var(--bad); }
tr.a-created td:first-child, tr.a-updated td:first-child, tr.a-attached td:first-child { border-left: 3px solid var(--ok); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.actions { display: flex; gap: .5rem; flex-wrap: wrap; margin: 1rem 0; }
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
@media (max-width: 640px) {
  main { padding: .5rem; }
  .phase { grid-template-columns: 5rem 1fr; }
  .phase span:last-child { grid-column: 1 / -1; }
  .downloads { margin-left: 0; }
}
`;
