// The live pages' shared HTML shell: one inline style and one inline script, both under the page's CSP nonce, no
// external resource, laid out for a phone-sized screen first. Text from data is set by the script as textContent.
import { escapeHtml as h } from '../report/escape.js';

const CSS = `
:root{color-scheme:light dark;--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--mute:#6e7781}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,sans-serif;margin:0;padding:12px;max-width:960px;margin-inline:auto}
h1{font-size:1.2rem;margin:0 0 8px}
h2{font-size:1rem;margin:0 0 6px}
section{border:1px solid #8884;border-radius:8px;padding:10px;margin:0 0 10px;overflow-wrap:anywhere}
.grid{display:grid;gap:10px;grid-template-columns:repeat(auto-fit,minmax(280px,1fr))}
code,pre,.mono{font-family:ui-monospace,monospace;font-size:.85rem}
pre{white-space:pre-wrap;margin:0;max-height:12em;overflow:auto}
table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:2px 6px 2px 0;vertical-align:top}
.badge{display:inline-block;padding:2px 10px;border-radius:12px;font-weight:600;background:#8883}
.badge[data-state=running],.badge[data-state=verified],.badge[data-state=pass]{background:var(--ok);color:#fff}
.badge[data-state=checkpointing]{background:#0969da;color:#fff}
.badge[data-state=dead],.badge[data-state=failed],.badge[data-state=fail]{background:var(--bad);color:#fff}
.badge[data-state=restoring],.badge[data-state=booting]{background:var(--warn);color:#fff}
.mute{color:var(--mute)}
button{font:inherit;font-weight:600;padding:8px 14px;border-radius:6px;border:0;background:var(--bad);color:#fff;cursor:pointer}
ol{margin:0;padding-left:1.4em;max-height:16em;overflow:auto}
svg{max-width:100%;height:auto}
`;

/** A whole live page: `body` (static markup, no data) and `script` (the code that fills it), both nonce'd. */
export function livePage(opts: { title: string; nonce: string; body: string; script: string }): string {
  const nonce = h(opts.nonce);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${h(opts.title)}</title>
<style nonce="${nonce}">${CSS}</style>
</head><body>
${opts.body}
<script nonce="${nonce}">${opts.script}</script>
</body></html>
`;
}

/** Script helpers every live page uses: the token from the URL, $, text(), and the event stream (calls render). */
export const SCRIPT_PRELUDE = `
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const q = '?token=' + encodeURIComponent(token);
const $ = (id) => document.getElementById(id);
const text = (id, v) => { const e = $(id); if (e) e.textContent = v === null || v === undefined ? '–' : String(v); };
const ms = (v) => v === null || v === undefined ? '–' : (v < 1000 ? v.toFixed(1) + ' ms' : (v / 1000).toFixed(2) + ' s');
function listInto(id, items) {
  const ol = $(id); if (!ol) return;
  ol.replaceChildren(...items.map((t) => { const li = document.createElement('li'); li.textContent = t; return li; }));
}
function connect(render) {
  const es = new EventSource('/events' + q);
  es.onmessage = (m) => { try { render(JSON.parse(m.data)); } catch (e) { text('conn', 'bad update: ' + e); } };
  es.onopen = () => text('conn', 'live');
  es.onerror = () => text('conn', 'reconnecting…');
}
`;
