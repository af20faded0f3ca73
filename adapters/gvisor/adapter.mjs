#!/usr/bin/env node
// gVisor (runsc) through the public target protocol v1 (docs/target-protocol.md). Written against the protocol only:
// no harness imports. The sandbox runs the static C workload agent (vm-images/agent, console "-" = its stdio) in an
// OCI bundle; checkpoint = `runsc checkpoint` (stops the sandbox) then `runsc restore` as the pause; the kill list is
// the sandbox's process group and the gofer. adapterOptions: { rootfs: memory | host, runsc: path }. External effects
// (docs/effects.md): the agent's requests come on its stdio and this adapter relays them (./effect-relay.mjs).
// The guest-state probe (docs/what-survives.md): with `probe` on boot, the container's process is a busybox shell that
// starts `probe setup` (stdin: a FIFO in the sandbox, opened read-write) and then execs the agent; after a restore
// `runsc exec` writes `examine <host ms>` into that FIFO: the same holder, restored with the sandbox, is asked.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { boundedLines, EffectRelay } from './effect-relay.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const agentDir = path.resolve(here, '..', '..', 'vm-images', 'agent');
const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);
const log = (message) => send({ type: 'log', message });

let opts = { rootfs: 'memory', runsc: '/usr/bin/runsc' };
let s = null; // session: { root, bundle, stepMs, errLog }
let live = null; // { id, child }
let lastStep = 0;
let serial = 0;
let effects = null; // the effect plan from boot/restore: { ledger, seed, everySteps }; null: effects off
let relay = null; // this incarnation's EffectRelay (effects on)

/** Global flags, repeated on every call (restore fails at once without --network=none). */
function flags() {
  const f = ['--root', s.root, '--platform=ptrace', '--network=none'];
  return opts.rootfs === 'memory' ? [...f, '--overlay2=root:memory'] : f;
}

function runsc(args, timeoutMs = 60_000) {
  const r = spawnSync(opts.runsc, [...flags(), ...args], { stdio: ['ignore', 'ignore', 'pipe'], timeout: timeoutMs });
  if (r.status !== 0)
    throw new Error(`runsc ${args[0]} failed (${r.status ?? r.signal}): ${String(r.stderr).trim().split('\n').pop()}`);
}

/** The static agent, built once per source hash with gcc into the system temp folder. */
function agentBinary() {
  const files = ['agent.c', 'tool.c', 'sha256.c', 'effects.c', 'sha256.h', 'tool.h', 'effects.h'];
  const h = createHash('sha256');
  for (const f of files) h.update(readFileSync(path.join(agentDir, f)));
  const out = path.join(os.tmpdir(), 'keepstate-soak-gvisor', `agent-${h.digest('hex').slice(0, 16)}`);
  if (!existsSync(out)) {
    mkdirSync(path.dirname(out), { recursive: true });
    const tmp = `${out}.${process.pid}`;
    execFileSync('gcc', [
      '-O2',
      '-static',
      '-o',
      tmp,
      ...['agent.c', 'tool.c', 'sha256.c', 'effects.c'].map((f) => path.join(agentDir, f)),
    ]);
    execFileSync('mv', [tmp, out]);
  }
  return out;
}

/**
 * A fresh OCI bundle: busybox + the agent in rootfs, the agent as the container's process, its workspace /work; with a
 * probe binary, a shell starts the probe's holder first, then execs the agent (still the container's process).
 */
function makeBundle(bundle, stepMs, probe) {
  rmSync(bundle, { recursive: true, force: true });
  mkdirSync(path.join(bundle, 'rootfs', 'bin'), { recursive: true });
  mkdirSync(path.join(bundle, 'rootfs', 'work'));
  execFileSync('cp', [agentBinary(), path.join(bundle, 'rootfs', 'bin', 'agent')]);
  if (existsSync('/bin/busybox')) execFileSync('cp', ['/bin/busybox', path.join(bundle, 'rootfs', 'bin', 'busybox')]);
  let argv = ['/bin/agent', '/work', String(stepMs), '-'];
  if (probe) {
    if (!existsSync('/bin/busybox'))
      throw new Error('the probe needs /bin/busybox (Debian busybox-static) for its shell');
    execFileSync('cp', [probe.binary, path.join(bundle, 'rootfs', 'bin', 'probe')]);
    mkdirSync(path.join(bundle, 'rootfs', 'tmp'), { mode: 0o1777 });
    mkdirSync(path.join(bundle, 'rootfs', 'probe'));
    const sh = 'mkfifo /probe/in && /bin/probe setup /probe --workspace /work 0<>/probe/in & exec ' + argv.join(' ');
    argv = ['/bin/busybox', 'sh', '-c', sh];
  }
  execFileSync(opts.runsc, ['spec', '--bundle', bundle, '--', ...argv]);
  const spec = JSON.parse(readFileSync(path.join(bundle, 'config.json'), 'utf8'));
  spec.root = { path: 'rootfs', readonly: false };
  spec.process.terminal = false;
  // effects on: the plan (no token, no address: the agent's requests go on its stdio to this adapter's relay)
  if (effects) spec.process.env = [...(spec.process.env ?? []), `SOAK_EFFECTS=${effects.seed}:${effects.everySteps}`];
  writeFileSync(path.join(bundle, 'config.json'), JSON.stringify(spec, null, 2));
}

/**
 * Remove every container a killed predecessor left in this session's runsc root (zombies, .lock files), and SIGKILL
 * any sandbox or gofer of this root that has no state file (a `runsc restore` killed before it wrote one).
 */
function cleanRoot() {
  if (!existsSync(s.root)) return;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (/^runsc-(sandbox|gofer)\0/.test(cmd) && cmd.includes(`\0--root=${s.root}\0`)) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }
  const ids = new Set(
    readdirSync(s.root).map((f) =>
      f
        .replace(/\.(state|lock)$/, '')
        .split(':')
        .pop(),
    ),
  );
  for (const id of ids)
    spawnSync(opts.runsc, [...flags(), 'delete', '-force', id], { stdio: 'ignore', timeout: 30_000 });
  for (const f of readdirSync(s.root)) if (f.endsWith('.lock')) rmSync(path.join(s.root, f), { force: true });
}

/** The sandbox PID and the gofer PID of a running container, from runsc's state file. */
function killList(id) {
  const file = readdirSync(s.root).find((f) => f.endsWith(`:${id}.state`));
  if (file === undefined) return;
  const st = JSON.parse(readFileSync(path.join(s.root, file), 'utf8'));
  const pids = [st.sandbox?.pid, st.goferPid].filter((p) => Number.isInteger(p) && p > 0);
  send({ type: 'pids', pids, groups: Number.isInteger(st.sandbox?.pid) ? [st.sandbox.pid] : [] });
}

let holdWaiter = null;
/** How long a hold request may go unanswered before it is sent again (a reply is a line: milliseconds at any load). */
const HOLD_RETRY_MS = 2000;
const HOLD_TRIES = 5;

/**
 * Ask the running agent to hold between steps and wait for its `HOLD <step>` reply; a request unanswered within
 * HOLD_RETRY_MS is sent again and logged (a later reply to an earlier request is as good: the agent holds from it), and
 * after HOLD_TRIES the checkpoint fails in one line instead of waiting for ever.
 */
async function holdAgent(sandbox) {
  for (let attempt = 1; attempt <= HOLD_TRIES; attempt++) {
    const held = new Promise((resolve) => (holdWaiter = resolve));
    sandbox.child.input.write('H');
    let timer;
    const late = new Promise((resolve) => (timer = setTimeout(() => resolve(null), HOLD_RETRY_MS)));
    const step = await Promise.race([held, late]);
    clearTimeout(timer);
    if (step !== null) return step;
    log(`checkpoint: no HOLD reply to hold request ${attempt} within ${HOLD_RETRY_MS} ms (last step seen ${lastStep})`);
  }
  holdWaiter = null;
  throw new Error(`the agent did not answer ${HOLD_TRIES} hold requests (last step seen ${lastStep})`);
}

function onLine(line) {
  if (line.startsWith('EFX ')) {
    const dropped = relay ? relay.handle(line) : 'effect request while effects are off';
    if (dropped !== undefined) log(`agent: ${dropped}`);
    return;
  }
  if (line.startsWith('{"probe"')) {
    try {
      return send({ type: 'probe', line: JSON.parse(line) });
    } catch {
      return log(`probe: a line that is not JSON: ${line.slice(0, 200)}`);
    }
  }
  const f = line.trim().split(' ');
  if (f[0] === 'HOLD' && f.length === 2) {
    if (holdWaiter === null) log(`agent: ${line} with no hold request waiting`);
    holdWaiter?.(Number(f[1]));
    holdWaiter = null;
  } else if (f[0] === 'HB' && f.length === 3) {
    lastStep = Number(f[1]);
    send({ type: 'hb', step: lastStep, nonce: f[2], full: false });
  } else if (f[0] === 'HBF' && (f.length === 9 || (f.length === 14 && f[9] === 'E' && relay))) {
    lastStep = Number(f[1]);
    const part = (i) => ({ step: Number(f[i]), digest: f[i + 1] });
    // the claim of an agent with effects: acknowledged through step f[10], counted per discipline; this incarnation's
    const [through, sk, rk, nk] = f.slice(10).map(Number);
    const claim = {
      through,
      acked: { 'step-key': sk, 'random-key': rk, 'no-key': nk },
      incarnation: relay?.incarnation,
    };
    const fx = f.length === 14 ? { effects: claim } : {};
    send({ type: 'hb', step: lastStep, nonce: f[2], full: true, fs: part(3), mem: part(5), tool: part(7), ...fx });
  } else if (line.length > 0) log(`agent: ${line}`);
}

/**
 * `runsc run` or `runsc restore`, detached, its stdio ours (a detached sandbox inherits the caller's stdio). Its stdin
 * is a FIFO, not Node's pipe: Node's stdio pipes are socket pairs, and the agent inside reads end-of-file from one.
 */
function start(verb, extra) {
  const id = `soak-${process.pid}-${serial++}`;
  const fifo = path.join(s.root, `${id}.in`);
  execFileSync('mkfifo', ['-m', '600', fifo]);
  const inFd = openSync(fifo, 'r+'); // read-write: opens without a peer, and we stay its writer
  rmSync(fifo);
  const errFd = openSync(s.errLog, 'a');
  const child = spawn(opts.runsc, [...flags(), verb, ...extra, '-bundle', s.bundle, '-detach', id], {
    stdio: [inFd, 'pipe', errFd],
  });
  closeSync(errFd);
  child.input = { write: (text) => writeSync(inFd, text), destroy: () => closeSync(inFd) };
  boundedLines(child.stdout, 64 * 1024, onLine); // a line flood from the sandbox cannot grow this process
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`runsc ${verb} exited ${code} (see ${s.errLog})`));
      live = { id, child };
      killList(id);
      resolve();
    });
  });
}

/** Write to the running agent's stdin; a sandbox gone meanwhile (its input closed) is no error: the agent asks again. */
function writeAgent(text) {
  try {
    live?.child.input.write(text);
  } catch {
    // the sandbox is gone or being replaced (checkpoint): the restored agent sends its request again
  }
}

/** A new incarnation of the agent (boot, restore): a new relay when effects are on. */
function newIncarnation(req) {
  relay?.close();
  effects = req.effects ?? null;
  relay = effects && new EffectRelay(effects.ledger, (text) => writeAgent(text));
}

function setSession(req) {
  s = {
    root: path.join(req.sessionDir, 'runsc-root'),
    bundle: path.join(req.sessionDir, 'bundle'),
    stepMs: req.stepMs,
    errLog: path.join(req.sessionDir, 'runsc.log'),
  };
  mkdirSync(s.root, { recursive: true });
}

const handlers = {
  describe(req) {
    const bad = Object.keys(req.options).filter((k) => !['rootfs', 'runsc'].includes(k));
    if (bad.length > 0) throw new Error(`adapterOptions.${bad[0]}: unknown option (known: rootfs, runsc)`);
    opts = { ...opts, ...req.options };
    if (!['memory', 'host'].includes(opts.rootfs)) throw new Error(`adapterOptions.rootfs: expected memory or host`);
    const version = execFileSync(opts.runsc, ['--version'], { encoding: 'utf8' })
      .split('\n')[0]
      .replace('runsc version ', '');
    return {
      protocolVersion: 1,
      runtime: 'gvisor', // gate files' byTarget key (gates/*.yaml)
      info: {
        runtime: 'gVisor (runsc)',
        runtimeVersion: version,
        platform: 'ptrace',
        network: 'none',
        rootfs: opts.rootfs === 'memory' ? 'overlay in sandbox memory (--overlay2=root:memory)' : 'host-backed (gofer)',
        checkpoint: 'runsc checkpoint (stops the sandbox) + runsc restore as the pause',
      },
      probe: { runs: 'binary' },
      limitations:
        opts.rootfs === 'host'
          ? [
              "the sandbox's file system is host-backed: it is not in runsc's checkpoint image, so a restore rolls memory back but not files",
            ]
          : ['no network in the sandbox (--network=none)'],
      effects: { reach: 'relay' }, // the agent's effect requests come on its stdio; this adapter calls the ledger
    };
  },
  async boot(req) {
    setSession(req);
    newIncarnation(req);
    cleanRoot();
    makeBundle(s.bundle, req.stepMs, req.probe);
    await start('run', []); // the agent sends a full heartbeat when it starts
    return {};
  },
  async checkpoint(req) {
    if (req.skewMs > 0) throw new Error('the gVisor adapter cannot capture the file system and memory apart (skewMs)');
    const old = live;
    // Hold the agent between steps first (it acknowledges with its step): the image then holds exactly the step of the
    // last heartbeat sent, never a step finished whose heartbeat was still unwritten (it would look invented after a kill).
    const step = await holdAgent(old);
    const t = process.hrtime.bigint(); // the pause: from the hold (a request resent meanwhile paused nothing) to release
    runsc(['checkpoint', `--image-path=${req.dir}`, old.id]); // writes checkpoint.img and stops the sandbox
    live = null;
    await start('restore', [`--image-path=${req.dir}`]);
    live.child.input.write('R'); // release the hold in the restored agent
    const pauseMs = Number(process.hrtime.bigint() - t) / 1e6;
    old.child.input.destroy();
    spawnSync(opts.runsc, [...flags(), 'delete', '-force', old.id], { stdio: 'ignore', timeout: 30_000 });
    return { step, pauseMs, parts: readdirSync(req.dir).sort(), meta: { runtime: 'gvisor' } };
  },
  async restore(req) {
    setSession(req);
    newIncarnation(req);
    cleanRoot();
    if (!existsSync(path.join(s.bundle, 'config.json'))) makeBundle(s.bundle, req.stepMs, req.probe);
    await start('restore', [`--image-path=${req.dir}`]);
    live.child.input.write('F'); // ends the hold the image was taken in; the restored agent cannot know it was restored: ask for the full heartbeat
    if (req.probe) {
      const ask = `echo examine ${Date.now()} > /probe/in`; // the restored holder answers on the sandbox's stdout
      runsc(['exec', live.id, '/bin/busybox', 'sh', '-c', ask]);
    }
    return {};
  },
  destroy() {
    if (s) cleanRoot();
    setImmediate(() => process.exit(0));
    return {};
  },
};

createInterface({ input: process.stdin }).on('line', async (line) => {
  const req = JSON.parse(line);
  if (req.type === 'full') {
    live?.child.input.write('F');
    return;
  }
  try {
    send({ type: 'result', id: req.id, ...(await handlers[req.type](req)) });
  } catch (err) {
    send({ type: 'error', id: req.id, message: err.message });
  }
});
process.stdin.on('end', () => {
  if (s) cleanRoot();
  process.exit(0);
});
