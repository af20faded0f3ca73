// The `soak demo --sessions N` page: a card per session (state, step, newest checkpoint, last downtime, its kill
// command and button) and the whole-host button, filled from the grid's snapshots (GridSnapshot); text set as text.
import { livePage, SCRIPT_PRELUDE } from '../live/shell.js';

const BODY = `
<h1>keepstate-soak demo: <span id="n-sessions">–</span> sessions <small id="conn" class="mute">connecting…</small></h1>
<p class="mute">Sessions on target <b id="target">–</b>, each checkpointed into its own store (one shared packs folder).
Kill one with the <code>kill -9</code> its card shows (or its button), or kill the whole host: every session's host
group SIGKILLed at one instant, as when the machine dies; each session then resumes on its own from its newest complete
checkpoint, checked by the same checker a soak uses. Run folder: <span id="run" class="mono">–</span></p>
<section id="host"><h2>The whole host <span id="host-state" class="badge" data-state="none">not killed yet</span></h2>
<p><button id="kill-host" type="button">kill the whole host</button> <span id="host-said" class="mute"></span></p>
<p id="host-result">–</p>
<ol id="host-downtimes"></ol>
<p class="mute">"All back" runs from the kill loop's start to the last session's first verified heartbeat; each session's
downtime from its own kill (a few µs apart in the loop) to its first verified heartbeat.
So far: <b id="n-int">0</b> interruptions, <b id="n-ok">0</b> resumed, <b id="n-fail">0</b> failed.</p>
</section>
<div id="cards" class="grid"></div>
`;

const SCRIPT = `${SCRIPT_PRELUDE}
const by = { person: 'typed by a person', button: 'by its button', host: 'with the whole host' };
function cell(tr, label, id) {
  const th = document.createElement('th'); th.textContent = label;
  const td = document.createElement('td'); td.id = id; td.textContent = '–'; tr.append(th, td); return tr;
}
async function post(path, extra, said) {
  text(said, 'sending SIGKILL…');
  try {
    const r = await fetch(path + q + extra, { method: 'POST' });
    text(said, r.ok ? 'sent' : 'refused (' + r.status + ')');
  } catch (e) { text(said, 'failed: ' + e); }
}
function makeCards(n) {
  const box = $('cards');
  for (let i = 0; i < n; i++) {
    const sec = document.createElement('section'); sec.id = 'card-' + i;
    const h = document.createElement('h2'); h.textContent = 'session ' + i + ' ';
    const b = document.createElement('span'); b.id = 'state-' + i; b.className = 'badge'; b.textContent = 'booting'; h.append(b);
    const t = document.createElement('table');
    for (const [label, id] of [['step', 'step-'], ['checkpoint', 'ck-'], ['last downtime', 'down-'], ['interrupted', 'n-']])
      t.append(cell(document.createElement('tr'), label, id + i));
    const pre = document.createElement('pre'); pre.id = 'cmd-' + i; pre.textContent = '–';
    const p = document.createElement('p');
    const btn = document.createElement('button'); btn.type = 'button'; btn.id = 'kill-' + i; btn.textContent = 'kill -9 now';
    const said = document.createElement('span'); said.id = 'said-' + i; said.className = 'mute';
    btn.addEventListener('click', () => post('/kill', '&session=' + i, 'said-' + i));
    p.append(btn, ' ', said);
    sec.append(h, t, pre, p); box.append(sec);
  }
}
let made = false;
function render(s) {
  if (!made) { made = true; makeCards(s.sessions); }
  text('n-sessions', s.sessions); text('target', s.target); text('run', s.runDir);
  for (const c of s.cards) {
    const i = c.session; const st = $('state-' + i); st.textContent = c.state; st.dataset.state = c.state;
    text('step-' + i, c.step >= 0 ? c.step : null);
    text('ck-' + i, c.checkpoint && (c.checkpoint.seq + ' (step ' + c.checkpoint.step + ', ' + ms(c.checkpoint.ageMs) + ' ago)'));
    text('down-' + i, c.last && (c.last.verdict === 'ok' ? ms(c.last.downtimeMs) : c.last.verdict) + ' (#' + c.last.cycle + ', ' + by[c.last.by] + ')');
    text('n-' + i, c.counts.interruptions + ' (' + c.counts.resumed + ' resumed, ' + c.counts.failed + ' failed)');
    text('cmd-' + i, c.command || '(no session host running)');
  }
  text('n-int', s.counts.interruptions); text('n-ok', s.counts.resumed); text('n-fail', s.counts.failed);
  const v = s.hostCrash;
  if (v) {
    const hs = $('host-state');
    hs.textContent = v.allBackMs !== null ? 'all back' : v.done ? 'not all back' : 'restoring';
    hs.dataset.state = v.allBackMs !== null ? 'pass' : v.done ? 'fail' : 'restoring';
    text('host-result', 'kill of the whole host #' + v.number + ': ' + v.text);
    listInto('host-downtimes', v.ends.map((e, i) => 'session ' + i + ': ' + (e === null ? 'restoring…' : e === 'down' ? 'not running at the kill' : e.verdict === 'ok' ? 'downtime ' + ms(e.downtimeMs) : e.verdict)));
  }
}
$('kill-host').addEventListener('click', () => post('/kill-host', '', 'host-said'));
connect(render);
`;

/** The grid page for `nonce`. */
export function gridPage(nonce: string): string {
  return livePage({ title: 'keepstate-soak demo: sessions', nonce, body: BODY, script: SCRIPT });
}
