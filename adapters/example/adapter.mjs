#!/usr/bin/env node
// A minimal target adapter (target protocol v1, docs/target-protocol.md) in plain Node, no harness imports: the
// "sandbox" is this process, running the workload itself; a checkpoint is its memory as state.json plus the workspace.
// adapterOptions: { restoreBootsFresh: true } makes it deliberately broken (restore ignores the checkpoint), for the
// conformance kit's negative control; { noEffects: true } declares no effects capability (the refusal's control);
// { effectsNeverSent: true } declares it but never calls the ledger (the conformance kit's effects check's control).
// External effects (docs/effects.md, "For adapter authors"): at the seeded steps it calls the run's effect ledger.
// The guest-state probe (docs/what-survives.md): it runs the binary it is given beside its workload, its /tmp being
// <sessionDir>/tmp; { wipeTmpOnRestore: true } empties that /tmp on restore (the negative control of class tmp-file).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';

const sha = (s) => createHash('sha256').update(s).digest('hex');
const link = (prev, n) => sha(`${prev}:${n}`);
const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

let options = {};
let state = null; // { nonce, step, mem, tool, effects: { through, acked } }
let workspace = '';
let loop = null; // the running step loop; a checkpoint stops it between two steps
let stopped = true;
let stepMs = 5;
let effects = null; // the effect plan from boot/restore: { ledger, seed, everySteps }; null: effects off
const incarnation = randomBytes(8).toString('hex'); // this adapter process: a resumed session is a new one
const DISCIPLINES = ['step-key', 'random-key', 'no-key'];

// The seeded-step rule and the step key (docs/effects.md): the same steps and keys as every other target's agent.
const isEffectStep = (seed, n, every) =>
  n >= 1 && createHash('sha256').update(`effects:${seed}:${n}`).digest().readUInt32BE(0) % every === 0;
const stepKey = (nonce, n) => sha(`effect:${nonce}:${n}:step-key`).slice(0, 32);

// One connection to the ledger, one request at a time, retried until acknowledged (NDJSON over TCP).
let ledger = null;
let waiting = null;
function connectLedger() {
  const [host, port] = effects.ledger.split(':');
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), host);
    s.once('error', reject);
    s.once('connect', () => {
      s.off('error', reject);
      s.on('error', () => s.destroy());
      s.on('close', () => {
        if (ledger === s) ledger = null;
        waiting?.(null);
      });
      createInterface({ input: s }).on('line', (line) => waiting?.(JSON.parse(line)));
      resolve(s);
    });
  });
}
async function emit(req) {
  for (;;) {
    try {
      ledger ??= await connectLedger();
      const token = process.env.SOAK_EFFECT_LEDGER_TOKEN ?? '';
      const reply = await new Promise((resolve) => {
        waiting = resolve;
        ledger.write(`${JSON.stringify({ token, ...req })}\n`);
      });
      waiting = null;
      if (reply?.ok === true) return reply;
      if (reply?.ok === false) throw new Error(`effect ledger refused ${req.effect}: ${reply.error}`);
    } catch (err) {
      if (err.message.startsWith('effect ledger refused')) throw err;
      ledger?.destroy();
      ledger = null;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

// At an effect step: one call per discipline, each counted in the state (what a checkpoint carries) once acknowledged.
async function emitEffects(n) {
  if (!effects || !isEffectStep(effects.seed, n, effects.everySteps)) return;
  if (options.effectsNeverSent) return; // deliberately broken: a declared capability it does not have
  for (const discipline of DISCIPLINES) {
    const key =
      discipline === 'step-key'
        ? stepKey(state.nonce, n)
        : discipline === 'random-key'
          ? randomBytes(16).toString('hex')
          : null;
    const effect = `${discipline}:${n}`;
    const r = await emit({ session: state.nonce, incarnation, effect, discipline, key, step: n });
    state.effects.acked[discipline]++;
    appendFileSync(
      path.join(workspace, 'effects.txt'),
      `${effect} seq ${r.seq} ${r.applied ? 'applied' : 'deduplicated'}\n`,
    );
  }
  state.effects.through = n;
}

// The probe: its holder is a child of this process (a SIGKILL of the session kills it); after a restore a new process
// examines its record, as this "sandbox" restarts its processes. Each line it prints goes to the host as it is.
let probe = null; // { binary } from boot/restore; null: no probe asked for
let holder = null;
let probeBusy = Promise.resolve(); // a setup or examination under way: destroy waits for it
let destroying = false;
let sessionDir = '';
const probeDir = () => path.join(sessionDir, 'probe');
const sandboxTmp = () => path.join(sessionDir, 'tmp');
const probeEnv = () => ({ ...process.env, TMPDIR: sandboxTmp() });
function relayProbe(line) {
  try {
    send({ type: 'probe', line: JSON.parse(line) });
  } catch {
    send({ type: 'log', message: `probe printed a line that is not JSON: ${line.slice(0, 200)}` });
  }
}
function probeSetup() {
  if (destroying) return Promise.resolve();
  mkdirSync(sandboxTmp(), { recursive: true });
  holder = spawn(probe.binary, ['setup', probeDir(), '--workspace', workspace], {
    env: probeEnv(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const h = holder;
  return new Promise((resolve) => {
    h.once('exit', resolve);
    createInterface({ input: h.stdout }).on('line', (line) => {
      relayProbe(line);
      resolve();
    });
  });
}
function probeCleanup() {
  try {
    execFileSync(probe.binary, ['cleanup', probeDir()], { env: probeEnv(), stdio: 'ignore', timeout: 60_000 });
  } catch {
    // no record yet: nothing to remove
  }
}
async function probeResume() {
  const args = ['examine', probeDir(), '--host-ms', String(Date.now())];
  const out = await new Promise((resolve) =>
    execFile(probe.binary, args, { env: probeEnv(), timeout: 60_000 }, (err, stdout) =>
      resolve(stdout.split('\n')[0] || JSON.stringify({ probe: 1, event: 'error', message: String(err) })),
    ),
  );
  relayProbe(out);
  probeCleanup();
  await probeSetup();
}

function logFile() {
  return path.join(workspace, 'log.txt');
}

function fullHeartbeat() {
  const content = readFileSync(logFile());
  const lines = content.toString().split('\n').length - 1;
  send({
    type: 'hb',
    step: state.step,
    nonce: state.nonce,
    full: true,
    fs: { step: lines, digest: sha(content) },
    mem: { step: state.step, digest: state.mem },
    tool: { step: state.step, digest: state.tool },
    ...(effects ? { effects: { ...state.effects, incarnation } } : {}),
  });
}

async function step() {
  const n = state.step + 1;
  state.mem = link(state.mem, n);
  state.tool = link(state.tool, n);
  state.step = n;
  appendFileSync(logFile(), `step ${n} ${state.mem.slice(0, 16)}\n`);
  await emitEffects(n);
  send({ type: 'hb', step: n, nonce: state.nonce, full: false });
}

function start() {
  stopped = false;
  loop = (async () => {
    while (!stopped) {
      await new Promise((r) => setTimeout(r, stepMs));
      if (!stopped) await step();
    }
  })();
}

async function stop() {
  stopped = true;
  await loop; // the step under way (and its effects) finishes first: a checkpoint lies between two steps
}

function run() {
  state.effects ??= { through: 0, acked: { 'step-key': 0, 'random-key': 0, 'no-key': 0 } };
  fullHeartbeat(); // the first heartbeat after boot or restore is full: it is what ends the measured downtime
  start();
}

function freshState(req) {
  workspace = path.join(req.sessionDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(logFile(), '');
  state = { nonce: randomBytes(8).toString('hex'), step: 0, mem: sha('mem:0'), tool: sha('tool:0') };
}

const handlers = {
  describe(req) {
    const known = ['restoreBootsFresh', 'noEffects', 'effectsNeverSent', 'wipeTmpOnRestore'];
    const unknown = Object.keys(req.options).filter((k) => !known.includes(k));
    if (unknown.length > 0)
      throw new Error(`adapterOptions.${unknown[0]}: unknown option (known: ${known.join(', ')})`);
    options = req.options;
    return {
      protocolVersion: 1,
      runtime: 'example',
      info: {
        runtime: 'example (in-process Node workload)',
        runtimeVersion: process.version,
        checkpoint: 'cooperative',
      },
      limitations: [
        ...(options.restoreBootsFresh ? ['deliberately broken: restore boots fresh'] : []),
        ...(options.effectsNeverSent ? ['deliberately broken: declares effects, never sends one'] : []),
      ],
      ...(options.noEffects ? {} : { effects: { reach: 'loopback' } }), // it runs on the host: 127.0.0.1 is the host's
      probe: { runs: 'binary' },
    };
  },
  boot(req) {
    stepMs = req.stepMs;
    effects = req.effects ?? null;
    freshState(req);
    run();
    sessionDir = req.sessionDir;
    probe = req.probe ?? null;
    if (probe) probeBusy = probeSetup();
    return {};
  },
  async checkpoint(req) {
    // Negative control: the workspace at t, memory skewMs later, the workload running in between.
    if (req.skewMs > 0) {
      mkdirSync(path.join(req.dir, 'workspace'));
      copyFileSync(logFile(), path.join(req.dir, 'workspace', 'log.txt'));
      await new Promise((r) => setTimeout(r, req.skewMs));
    }
    const t = process.hrtime.bigint();
    await stop(); // frozen between steps: nothing runs until start() again
    if (req.skewMs === 0) {
      mkdirSync(path.join(req.dir, 'workspace'));
      copyFileSync(logFile(), path.join(req.dir, 'workspace', 'log.txt'));
    }
    writeFileSync(path.join(req.dir, 'state.json'), JSON.stringify(state));
    const captured = state.step;
    start();
    const pauseMs = Number(process.hrtime.bigint() - t) / 1e6;
    return { step: captured, pauseMs, parts: ['state.json', 'workspace/log.txt'], meta: { skewAppliedMs: req.skewMs } };
  },
  restore(req) {
    stepMs = req.stepMs;
    effects = req.effects ?? null;
    if (options.restoreBootsFresh) freshState(req);
    else {
      workspace = path.join(req.sessionDir, 'workspace');
      mkdirSync(workspace, { recursive: true });
      copyFileSync(path.join(req.dir, 'workspace', 'log.txt'), logFile());
      state = JSON.parse(readFileSync(path.join(req.dir, 'state.json'), 'utf8'));
    }
    sessionDir = req.sessionDir;
    probe = req.probe ?? null;
    if (options.wipeTmpOnRestore) rmSync(sandboxTmp(), { recursive: true, force: true }); // negative control
    run();
    if (probe) probeBusy = probeResume();
    return {};
  },
  async destroy() {
    stopped = true;
    destroying = true;
    await probeBusy;
    holder?.kill('SIGKILL');
    if (probe) probeCleanup();
    setImmediate(() => process.exit(0));
    return {};
  },
};

createInterface({ input: process.stdin }).on('line', async (line) => {
  const req = JSON.parse(line);
  if (req.type === 'full') {
    if (state) fullHeartbeat();
    return;
  }
  try {
    send({ type: 'result', id: req.id, ...(await handlers[req.type](req)) });
  } catch (err) {
    send({ type: 'error', id: req.id, message: err.message });
  }
});
process.stdin.on('end', () => process.exit(0));
