// The agent of the process target: a real process doing the deterministic workload step by step, with a tool process
// and a workspace folder. Talks NDJSON with its host on stdin/stdout; hands its memory over at a pause (cooperative checkpoint).
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Socket } from 'node:net';
import { logLine, MEM_SEED, nextLink, sha256hex } from '../../check/workload.js';
import type { EffectsConfig } from '../../effects/plan.js';
import { AgentEffects, freshEffectState, type EffectState } from './agent-effects.js';

interface Args {
  workspace: string;
  handoff: string;
  stepMs: number;
  heapBytes: number;
  restoreMem?: string;
  /** The run's effect ledger and plan (issue 34): absent, the agent emits no effect. */
  effects?: EffectsConfig;
  /** Pre-started for a warm standby: wait for a 'start' command (fresh, or the memory to restore) before working. */
  standby: boolean;
}

function parseArgs(argv: string[]): Args {
  const get = (k: string): string | undefined => {
    const i = argv.indexOf(`--${k}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    workspace: get('workspace') ?? '.',
    handoff: get('handoff') ?? '.',
    stepMs: Number(get('step-ms') ?? 5),
    heapBytes: Number(get('heap-bytes') ?? 1 << 20),
    restoreMem: get('restore-mem'),
    ...(get('effects') !== undefined ? { effects: JSON.parse(get('effects')!) as EffectsConfig } : {}),
    standby: argv.includes('--standby'),
  };
}

/** The agent's memory: everything a checkpoint must carry for it to resume. */
interface Memory {
  nonce: string;
  step: number;
  chain: string;
  heap: Buffer;
  /** What the agent believes the world has seen (only with effects). */
  effects: EffectState;
}

/** Deterministic initial heap, so dedup has realistic mostly-unchanged pages to work with. */
function initialHeap(size: number): Buffer {
  const heap = Buffer.alloc(size);
  let block = sha256hex('heap:0');
  for (let off = 0; off < size; off += 32) {
    Buffer.from(block, 'hex').copy(heap, off);
    if (off % 4096 === 0) block = sha256hex(block);
  }
  return heap;
}

function encodeMemory(m: Memory): Buffer {
  const header = JSON.stringify({
    nonce: m.nonce,
    step: m.step,
    chain: m.chain,
    heapBytes: m.heap.length,
    ...(effects ? { effects: m.effects } : {}), // without effects the memory is byte for byte as before
  });
  return Buffer.concat([Buffer.from(`${header}\n`), m.heap]);
}

function decodeMemory(buf: Buffer): Memory {
  const nl = buf.indexOf(0x0a);
  const h = JSON.parse(buf.subarray(0, nl).toString()) as {
    nonce: string;
    step: number;
    chain: string;
    heapBytes: number;
    effects?: EffectState;
  };
  return {
    nonce: h.nonce,
    step: h.step,
    chain: h.chain,
    heap: Buffer.from(buf.subarray(nl + 1, nl + 1 + h.heapBytes)),
    effects: h.effects ?? freshEffectState(),
  };
}

const args = parseArgs(process.argv.slice(2));
const logFile = path.join(args.workspace, 'log.txt');
const effects = args.effects ? new AgentEffects(args.effects, args.workspace) : null;
const send = (msg: object): void => {
  process.stdout.write(`${JSON.stringify(msg)}\n`);
};

let mem: Memory;
/** Build the agent's memory: restored from a handoff file, or a fresh session (new nonce, empty log). */
function initMemory(restoreMem: string | undefined): void {
  if (restoreMem) {
    mem = decodeMemory(readFileSync(restoreMem));
  } else {
    const nonce = randomBytes(8).toString('hex');
    mem = { nonce, step: 0, chain: MEM_SEED, heap: initialHeap(args.heapBytes), effects: freshEffectState() };
    writeFileSync(logFile, '');
  }
}

// The tool process is started by the host beside this agent (both start at once, which halves the resume path);
// its stdin is our fd 3 and its stdout our fd 4.
const toolIn = new Socket({ fd: 3, readable: false, writable: true });
const toolOut = new Socket({ fd: 4, readable: true, writable: false });
const toolLines = createInterface({ input: toolOut });
const toolWaiters: ((line: string) => void)[] = [];
toolLines.on('line', (line) => toolWaiters.shift()?.(line));

function toolCall(cmd: string): Promise<{ step: number; digest: string }> {
  return new Promise((resolve, reject) => {
    toolWaiters.push((line) => {
      const [kind, step, digest] = line.split(' ');
      if (kind === 'error' || step === undefined || digest === undefined) reject(new Error(`tool: ${line}`));
      else resolve({ step: Number(step), digest });
    });
    toolIn.write(`${cmd}\n`);
  });
}

async function fullHeartbeat(): Promise<void> {
  const content = readFileSync(logFile);
  const lines = content.length === 0 ? 0 : content.toString().split('\n').length - 1;
  const toolState = await toolCall('state');
  send({
    ev: 'hb',
    step: mem.step,
    nonce: mem.nonce,
    full: true,
    fs: { step: lines, digest: sha256hex(content) },
    mem: { step: mem.step, digest: mem.chain },
    tool: toolState,
    ...(effects ? { effects: effects.claim(mem.effects) } : {}),
  });
}

async function doStep(): Promise<void> {
  const n = mem.step + 1;
  mem.chain = nextLink(mem.chain, n);
  mem.step = n;
  Buffer.from(mem.chain, 'hex').copy(mem.heap, (n * 32 * 131) % Math.max(32, mem.heap.length - 32));
  appendFileSync(logFile, logLine(n, mem.chain));
  await toolCall(`step ${n}`);
  if (effects) await effects.atStep(mem.nonce, n, mem.effects);
  send({ ev: 'hb', step: n, nonce: mem.nonce, full: false });
}

let paused = false;
let wantFull = true;
let pendingPause = false;

async function handoff(): Promise<void> {
  const toolState = await toolCall('state');
  const memFile = path.join(args.handoff, 'mem.bin');
  writeFileSync(memFile, encodeMemory(mem));
  send({ ev: 'paused', step: mem.step, memFile, tool: toolState });
}

async function loop(): Promise<void> {
  for (;;) {
    // A requested full heartbeat goes first: after a restore it is what ends the downtime.
    if (wantFull && !paused) {
      wantFull = false;
      await fullHeartbeat();
    }
    if (pendingPause) {
      pendingPause = false;
      paused = true;
      await handoff();
    }
    if (!paused) await doStep();
    await new Promise((r) => setTimeout(r, paused ? 1 : args.stepMs));
  }
}

/** Begin working: the memory is set (and the tool told its state, when restoring from a standby). */
function begin(): void {
  send({ ev: 'started', step: mem.step, nonce: mem.nonce });
  loop().catch((err: unknown) => {
    process.stderr.write(`agent: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}

/** A standby agent's start: restore `memFile` (or start fresh) and set the tool's state, then work. */
async function startFromStandby(msg: { memFile?: string; tool?: { step: number; digest: string } }): Promise<void> {
  initMemory(msg.memFile);
  if (msg.tool) await toolCall(`set ${msg.tool.step} ${msg.tool.digest}`);
  begin();
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const msg = JSON.parse(line) as { cmd: string; memFile?: string; tool?: { step: number; digest: string } };
  if (msg.cmd === 'pause') pendingPause = true;
  else if (msg.cmd === 'resume') paused = false;
  else if (msg.cmd === 'full') wantFull = true;
  else if (msg.cmd === 'start' && args.standby)
    startFromStandby(msg).catch((err: unknown) => {
      process.stderr.write(`agent: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
});
process.stdin.on('end', () => process.exit(0));

if (args.standby) send({ ev: 'standing-by' });
else {
  initMemory(args.restoreMem);
  begin();
}
