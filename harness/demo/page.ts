// The `soak demo` page: static markup plus the script that fills it from the demo's snapshots (DemoSnapshot).
import { livePage, SCRIPT_PRELUDE } from '../live/shell.js';

const BODY = `
<h1>keepstate-soak demo <span id="state" class="badge" data-state="booting">booting</span> <small id="conn" class="mute">connecting…</small></h1>
<p class="mute">One agent session on target <b id="target">–</b>, checkpointed into a content-addressed store. Kill it with
<code>kill -9</code> from another terminal (or the button) and watch it come back from its newest complete checkpoint,
checked by the same checker a soak uses. Run folder: <span id="run" class="mono">–</span></p>
<div class="grid">
<section><h2>Kill it</h2>
<p>Its session host's whole process group (host, agent, tool):</p>
<pre id="cmd-group">–</pre>
<p>Or only the session host process:</p>
<pre id="cmd-host">–</pre>
<p id="qemu-line" hidden>Or only the guest's QEMU process:</p>
<pre id="cmd-qemu" hidden></pre>
<p class="mute">Processes in the group: <span id="members" class="mono">–</span></p>
<p><button id="kill" type="button">kill -9 now</button> <span id="kill-said" class="mute"></span></p>
</section>
<section><h2>Agent</h2>
<table>
<tr><th>step</th><td id="step" class="mono">–</td></tr>
<tr><th>boot nonce</th><td id="nonce" class="mono">–</td></tr>
</table>
<p class="mute">Digests the workload model expects at the current step (what the agent's three parts must hash to):</p>
<table class="mono"><tr><th>fs</th><td id="exp-fs">–</td></tr><tr><th>mem</th><td id="exp-mem">–</td></tr><tr><th>tool</th><td id="exp-tool">–</td></tr></table>
<p class="mute">Reported by the agent itself in its last full heartbeat (after boot or the last restore), at step <span id="rep-step">–</span>:</p>
<table class="mono"><tr><th>fs</th><td id="rep-fs">–</td></tr><tr><th>mem</th><td id="rep-mem">–</td></tr><tr><th>tool</th><td id="rep-tool">–</td></tr></table>
</section>
<section><h2>Newest complete checkpoint</h2>
<table>
<tr><th>id (seq)</th><td id="ck-seq">–</td></tr>
<tr><th>step</th><td id="ck-step">–</td></tr>
<tr><th>age</th><td id="ck-age">–</td></tr>
</table>
</section>
<section id="outcome"><h2>Last interruption <span id="verdict" class="badge" data-state="none">none yet</span></h2>
<table>
<tr><th>interruption</th><td id="o-cycle">–</td></tr>
<tr><th>downtime</th><td id="o-downtime">–</td></tr>
<tr><th>resumed from</th><td id="o-from">–</td></tr>
<tr><th>steps of work lost</th><td id="o-lost">–</td></tr>
<tr><th>boot nonce preserved</th><td id="o-nonce">–</td></tr>
<tr><th>checker</th><td id="o-checker">–</td></tr>
</table>
<p class="mute">Downtime runs from the kill to the resumed session's first verified heartbeat. A kill typed by a person is
timed from the moment the demo noticed the death (its child's exit), a few ms after the kill itself. Steps lost are the
steps the agent did after the checkpoint it resumed from: what a crash honestly costs, since only a committed
checkpoint survives it; the agent redoes them.</p>
<p>So far: <b id="n-int">0</b> interruptions, <b id="n-ok">0</b> resumed, <b id="n-fail">0</b> failed.</p>
<p id="rate" class="mute">–</p>
</section>
<section id="effects" hidden><h2>External effects</h2>
<table><thead><tr><th>discipline</th><th>emitted</th><th>duplicates</th><th>lost</th></tr></thead><tbody>
<tr><th>key from session + step</th><td id="fx-step-key-emitted">–</td><td id="fx-step-key-duplicates">–</td><td id="fx-step-key-lost">–</td></tr>
<tr><th>random key</th><td id="fx-random-key-emitted">–</td><td id="fx-random-key-duplicates">–</td><td id="fx-random-key-lost">–</td></tr>
<tr><th>no key</th><td id="fx-no-key-emitted">–</td><td id="fx-no-key-duplicates">–</td><td id="fx-no-key-lost">–</td></tr>
</tbody></table>
<p class="mute">Emitted: the requests the world (the run's effect ledger) has been sent so far, live. Duplicates and
lost: what the accounting after each resume found (docs/effects.md). A resume redoes the steps after its checkpoint:
with a key from the session and the step the world recognises the re-emission; with a random key or none it applies it
again. Lost must stay 0.</p>
</section>
<section><h2>Workspace (last lines of log.txt)</h2><pre id="workspace">–</pre></section>
<section><h2>Timeline</h2><ol id="timeline" reversed></ol></section>
</div>
`;

const SCRIPT = `${SCRIPT_PRELUDE}
const short = (d) => d ? d.slice(0, 32) + '…' : '–';
let lastTimeline = '';
function render(s) {
  const st = $('state'); st.textContent = s.state; st.dataset.state = s.state;
  text('target', s.target); text('run', s.runDir);
  text('cmd-group', s.pids ? s.pids.commands[0] : '(no session host running)');
  text('cmd-host', s.pids ? s.pids.commands[1] : '(no session host running)');
  const qemu = s.pids ? s.pids.commands.slice(2) : [];
  $('qemu-line').hidden = $('cmd-qemu').hidden = qemu.length === 0; text('cmd-qemu', qemu.join('\\n'));
  text('members', s.pids && s.pids.members.length ? s.pids.members.map((m) => m.pid + ' ' + m.name).join(', ') : '–');
  text('step', s.step >= 0 ? s.step : null); text('nonce', s.nonce);
  const e = s.expected || {}; text('exp-fs', short(e.fs)); text('exp-mem', short(e.mem)); text('exp-tool', short(e.tool));
  const r = s.reported || {}; text('rep-step', r.step); text('rep-fs', short(r.fs)); text('rep-mem', short(r.mem)); text('rep-tool', short(r.tool));
  const c = s.checkpoint; text('ck-seq', c && c.seq); text('ck-step', c && c.step); text('ck-age', c && ms(c.ageMs));
  const o = s.last;
  if (o) {
    const v = $('verdict'); v.textContent = o.verdict === 'ok' ? 'verified' : o.verdict; v.dataset.state = o.verdict === 'ok' ? 'pass' : 'fail';
    text('o-cycle', '#' + o.cycle + (o.by === 'button' ? ', by the button' : ', typed by a person') + (o.noticeMs !== null ? ' (death noticed ' + ms(o.noticeMs) + ' after the kill)' : ''));
    text('o-downtime', ms(o.downtimeMs));
    text('o-from', o.restoredSeq === null ? 'not resumed' : 'checkpoint ' + o.restoredSeq + ' (step ' + o.restoredStep + ')');
    text('o-lost', o.lostSteps === null ? '–' : o.lostSteps + ' (step ' + o.killStep + ' at the kill, back to step ' + o.restoredStep + ')');
    text('o-nonce', o.noncePreserved ? 'yes' : 'no');
    text('o-checker', o.violations.length === 0 ? (o.verdict === 'ok' ? 'verified: consistent, not behind the checkpoint, not ahead of the kill' : o.verdict) : o.violations.join('; '));
  }
  text('n-int', s.counts.interruptions); text('n-ok', s.counts.resumed); text('n-fail', s.counts.failed); text('rate', s.resumeRate);
  const fx = s.effects; $('effects').hidden = !fx;
  if (fx) for (const d of ['step-key', 'random-key', 'no-key']) for (const k of ['emitted', 'duplicates', 'lost']) text('fx-' + d + '-' + k, fx[d][k]);
  text('workspace', s.workspace.length ? s.workspace.join('\\n') : '(empty)');
  const tl = s.timeline.length + ':' + (s.timeline[0] ? s.timeline[0].atMs + s.timeline[0].text : '');
  if (tl !== lastTimeline) { lastTimeline = tl; listInto('timeline', s.timeline.map((t) => (t.atMs / 1000).toFixed(3) + ' s  ' + t.text)); }
}
$('kill').addEventListener('click', async () => {
  text('kill-said', 'sending SIGKILL…');
  try {
    const r = await fetch('/kill' + q, { method: 'POST' });
    text('kill-said', r.ok ? 'sent' : 'refused (' + r.status + ')');
  } catch (e) { text('kill-said', 'failed: ' + e); }
});
connect(render);
`;

/** The demo page for `nonce`. */
export function demoPage(nonce: string): string {
  return livePage({ title: 'keepstate-soak demo', nonce, body: BODY, script: SCRIPT });
}
