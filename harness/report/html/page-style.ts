// The stylesheet inlined in every report page (no external fonts or files: the page works offline).

/** Shared CSS for the run page and the reports index. */
export const PAGE_CSS = `
:root { --ink:#111827; --muted:#6b7280; --line:#e5e7eb; --bg:#f6f7f9; --card:#fff;
  --pass:#1b7f4b; --pass-bg:#e7f6ee; --fail:#b42318; --fail-bg:#fdecea; --warn:#8a5a00; --warn-bg:#fff4dc; --none-bg:#eef0f3; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.55 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
main { max-width: 1000px; margin: 0 auto; padding: 32px 24px 64px; }
header h1 { font-size: 26px; line-height: 1.25; margin: 0 0 6px; letter-spacing: -0.01em; overflow-wrap: anywhere; }
header .meta { color: var(--muted); font-size: 14px; margin: 0; }
header .meta span + span::before { content: "·"; margin: 0 8px; color: #c0c4cc; }
h2 { font-size: 18px; margin: 36px 0 12px; padding-bottom: 6px; border-bottom: 1px solid var(--line); }
.banner { margin: 22px 0 8px; padding: 14px 18px; border-radius: 10px; border-left: 6px solid; }
.banner strong { display: block; font-size: 17px; letter-spacing: 0.01em; }
.banner p { margin: 4px 0 0; font-size: 14px; }
.banner.pass { background: var(--pass-bg); border-color: var(--pass); color: var(--pass); }
.banner.fail, .banner.adapter-fault { background: var(--fail-bg); border-color: var(--fail); color: var(--fail); }
.banner.insufficient, .banner.inconclusive { background: var(--warn-bg); border-color: var(--warn); color: var(--warn); }
.banner.none { background: var(--none-bg); border-color: var(--muted); color: var(--ink); }
.banner.provenance { background: var(--none-bg); border-color: var(--muted); color: var(--ink); margin-top: 8px; }
.banner.provenance strong { font-size: 15px; }
.banner p { color: var(--ink); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin: 16px 0 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: 0.05em; }
.card .value { font-size: 22px; font-weight: 650; margin: 2px 0; font-variant-numeric: tabular-nums; }
.card .sub { color: var(--muted); font-size: 13px; }
ul.claims { padding-left: 20px; margin: 0; } ul.claims li { margin: 4px 0; }
table { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; font-size: 14px; }
.table-scroll { overflow-x: auto; }
th, td { text-align: left; padding: 8px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
td.wrap { overflow-wrap: anywhere; }
td code { white-space: nowrap; font-size: 12px; color: #4b5563; }
th { background: #f9fafb; font-weight: 600; color: #374151; font-size: 13px; }
tr:last-child td { border-bottom: none; }
td.num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.pill { display: inline-block; padding: 1px 9px; border-radius: 999px; font-size: 12px; font-weight: 600; white-space: nowrap; }
.pill.pass { background: var(--pass-bg); color: var(--pass); }
.pill.fail, .pill.adapter-fault { background: var(--fail-bg); color: var(--fail); }
.pill.insufficient, .pill.inconclusive { background: var(--warn-bg); color: var(--warn); }
.pill.none { background: var(--none-bg); color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 16px; }
figure.chart { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px; }
figure.chart.wide { grid-column: 1 / -1; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
figure.chart figcaption { color: var(--muted); font-size: 13px; margin-top: 6px; }
figure.chart figcaption a { color: inherit; }
h3 { font-size: 15px; margin: 20px 0 8px; }
dl.gate-descriptions dt { font-weight: 600; margin-top: 8px; }
dl.gate-descriptions dd { margin: 2px 0 0 16px; color: #374151; font-size: 14px; }
.env td:first-child { width: 200px; color: var(--muted); }
code { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
a { color: #2f6db5; }
`;
