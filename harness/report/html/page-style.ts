// The stylesheet inlined in every report page (no external fonts or files: the page works offline). Fits a 390 px
// phone as well as a 1280 px screen: nothing is wider than the viewport; on narrow screens a table of gates or
// reports becomes one card per row.

/** Shared CSS for the run page and the reports index. */
export const PAGE_CSS = `
:root { --ink:#111827; --muted:#6b7280; --line:#e5e7eb; --bg:#f6f7f9; --card:#fff;
  --pass:#1b7f4b; --pass-bg:#e7f6ee; --fail:#b42318; --fail-bg:#fdecea; --warn:#8a5a00; --warn-bg:#fff4dc; --none-bg:#eef0f3; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; overflow-wrap: anywhere; }
main { max-width: 1040px; margin: 0 auto; padding: 16px 24px 64px; }
header h1 { font-size: 24px; line-height: 1.25; margin: 0 0 4px; letter-spacing: -0.01em; }
header .meta { color: var(--muted); font-size: 13px; margin: 0; }
header .meta span { display: inline-block; max-width: 100%; }
header .meta span + span::before { content: "·"; margin: 0 6px; color: #c0c4cc; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 20px 0 8px; }
a { color: #2f6db5; }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.banner { margin: 12px 0 8px; padding: 10px 16px; border-radius: 10px; border-left: 6px solid; }
.banner strong { display: block; font-size: 17px; letter-spacing: 0.01em; }
.banner p { margin: 4px 0 0; font-size: 14px; color: var(--ink); }
.banner.pass { background: var(--pass-bg); border-color: var(--pass); color: var(--pass); }
.banner.fail, .banner.adapter-fault { background: var(--fail-bg); border-color: var(--fail); color: var(--fail); }
.banner.insufficient, .banner.inconclusive { background: var(--warn-bg); border-color: var(--warn); color: var(--warn); }
.banner.none { background: var(--none-bg); border-color: var(--muted); color: var(--ink); }
.banner.provenance { background: var(--none-bg); border-color: var(--muted); color: var(--ink); margin: 0 0 8px; padding: 3px 10px; border-left-width: 4px; }
.banner.provenance strong { font-size: 13px; font-weight: 600; }
#first-screen { display: grid; gap: 6px; margin: 8px 0 0; }
.story-gate { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--muted); border-radius: 8px; padding: 6px 10px; }
.story-gate.fail { border-left-color: var(--fail); }
.story-gate.inconclusive, .story-gate.insufficient { border-left-color: var(--warn); }
.story-gate h3 { margin: 0 0 2px; font-size: 14px; line-height: 1.35; }
.story-gate .title { font-weight: 600; }
dl.figures { margin: 0; font-size: 13px; line-height: 1.4; }
dl.figures div, dl.figures dt, dl.figures dd { display: inline; }
dl.figures div + div::before { content: "·"; margin: 0 5px; color: #c0c4cc; }
dl.figures dt { color: var(--muted); white-space: nowrap; }
dl.figures dt::after { content: " "; }
dl.figures dd { margin: 0; font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }
dl.figures dd[data-field="judged"] { white-space: normal; }
#first-screen p.passed { margin: 0; color: var(--muted); font-size: 13px; }
#next-steps h2 { margin-top: 16px; font-size: 16px; }
#next-steps ol { margin: 0; padding-left: 22px; font-size: 14px; }
#next-steps li { margin: 3px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(160px, 100%), 1fr)); gap: 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; }
.card .value { font-size: 22px; font-weight: 650; margin: 2px 0; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 13px; }
ul.claims { padding-left: 20px; margin: 0; } ul.claims li { margin: 4px 0; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); font-size: 14px; }
th, td { text-align: left; padding: 7px 9px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f9fafb; font-weight: 600; color: #374151; font-size: 13px; }
tr:last-child td { border-bottom: none; }
td.num { font-variant-numeric: tabular-nums; }
td code { font-size: 12px; color: #4b5563; }
.table-scroll { overflow-x: auto; max-width: 100%; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pill.pass { background: var(--pass-bg); color: var(--pass); }
.pill.fail, .pill.adapter-fault { background: var(--fail-bg); color: var(--fail); }
.pill.insufficient, .pill.inconclusive { background: var(--warn-bg); color: var(--warn); }
.pill.none { background: var(--none-bg); color: var(--muted); }
table.gates { font-size: 13px; }
table.gates td.gate .title { font-weight: 600; }
table.gates td.gate code { display: block; overflow-wrap: normal; }
table.gates td[data-col="interval"], table.gates td[data-col="observed"], table.gates td[data-col="n"], table.gates th { white-space: nowrap; }
details.note summary, details#gate-rules summary { cursor: pointer; color: #2f6db5; font-size: 12px; }
details.note p { margin: 2px 0 0; color: #374151; font-size: 12px; }
details#gate-rules { margin: 12px 0 0; }
details#gate-rules > summary { font-size: 14px; }
dl.gate-descriptions dt { font-weight: 600; margin-top: 8px; }
dl.gate-descriptions dd { margin: 2px 0 0 16px; color: #374151; font-size: 14px; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(440px, 100%), 1fr)); gap: 16px; }
figure.chart { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px; min-width: 0; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
figure.chart figcaption { color: var(--muted); font-size: 13px; margin-top: 6px; }
figure.chart figcaption a { color: inherit; }
.env td:first-child { width: 30%; color: var(--muted); }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
@media (max-width: 700px) {
  main { padding: 8px 12px 48px; }
  body { font-size: 14px; }
  header h1 { font-size: 18px; }
  .banner { padding: 8px 12px; margin-top: 8px; }
  .banner strong { font-size: 15px; }
  .banner p { font-size: 13px; }
  h2 { font-size: 16px; margin-top: 26px; }
  table.cards-narrow, table.cards-narrow tbody, table.cards-narrow tr, table.cards-narrow td { display: block; }
  table.cards-narrow thead { display: none; }
  table.cards-narrow tr { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 4px 12px; padding: 8px 10px; border-bottom: 1px solid var(--line); }
  table.cards-narrow tr:last-child { border-bottom: none; }
  table.cards-narrow td { border: none; padding: 0; }
  table.cards-narrow td[data-label]::before { content: attr(data-label); display: block; color: var(--muted); font-size: 11px; font-weight: 400; }
  table.cards-narrow td.wide { grid-column: 1 / -1; }
  table.gates td.id { display: none; }
  table.gates td.gate code { display: inline; margin-left: 6px; }
}
`;
