#!/usr/bin/env node
// A minimal target adapter (target protocol v1, docs/target-protocol.md) in plain Node, no harness imports: the
// "sandbox" is this process, running the workload itself; a checkpoint is its memory as state.json plus the workspace.
// adapterOptions: { restoreBootsFresh: true } makes it deliberately broken (restore ignores the checkpoint), for the
// conformance kit's negative control.
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';

const sha = (s) => createHash('sha256').update(s).digest('hex');
const link = (prev, n) => sha(`${prev}:${n}`);
const send = (msg) => process.stdout.write(`${JSON.stringify(msg)}\n`);

let options = {};
let state = null; // { nonce, step, mem, tool }
let workspace = '';
let timer = null;
let stepMs = 5;

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
  });
}

function step() {
  const n = state.step + 1;
  state.mem = link(state.mem, n);
  state.tool = link(state.tool, n);
  state.step = n;
  appendFileSync(logFile(), `step ${n} ${state.mem.slice(0, 16)}\n`);
  send({ type: 'hb', step: n, nonce: state.nonce, full: false });
}

function run() {
  fullHeartbeat(); // the first heartbeat after boot or restore is full: it is what ends the measured downtime
  timer = setInterval(step, stepMs);
}

function freshState(req) {
  workspace = path.join(req.sessionDir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(logFile(), '');
  state = { nonce: randomBytes(8).toString('hex'), step: 0, mem: sha('mem:0'), tool: sha('tool:0') };
}

const handlers = {
  describe(req) {
    const known = ['restoreBootsFresh'];
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
      limitations: options.restoreBootsFresh ? ['deliberately broken: restore boots fresh'] : [],
    };
  },
  boot(req) {
    stepMs = req.stepMs;
    freshState(req);
    run();
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
    clearInterval(timer); // frozen between steps: nothing runs until setInterval again
    if (req.skewMs === 0) {
      mkdirSync(path.join(req.dir, 'workspace'));
      copyFileSync(logFile(), path.join(req.dir, 'workspace', 'log.txt'));
    }
    writeFileSync(path.join(req.dir, 'state.json'), JSON.stringify(state));
    const captured = state.step;
    timer = setInterval(step, stepMs);
    const pauseMs = Number(process.hrtime.bigint() - t) / 1e6;
    return { step: captured, pauseMs, parts: ['state.json', 'workspace/log.txt'], meta: { skewAppliedMs: req.skewMs } };
  },
  restore(req) {
    stepMs = req.stepMs;
    if (options.restoreBootsFresh) freshState(req);
    else {
      workspace = path.join(req.sessionDir, 'workspace');
      mkdirSync(workspace, { recursive: true });
      copyFileSync(path.join(req.dir, 'workspace', 'log.txt'), logFile());
      state = JSON.parse(readFileSync(path.join(req.dir, 'state.json'), 'utf8'));
    }
    run();
    return {};
  },
  destroy() {
    clearInterval(timer);
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
