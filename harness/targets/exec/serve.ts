// The adapter side of the public target protocol for a built-in target (process, microvm): what an adapter program in
// another language would do, written against the same messages. adapters/builtin/adapter.mjs runs it; a soak through
// it must match the in-process target's figures, which is the proof that the protocol carries everything.
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { CheckpointSink, CheckpointSource, PartData } from '../../store/types.js';
import { type ConfigIssue, throwIfIssues } from '../../core/config-issues.js';
import { createTarget, targetIssues, targetNames } from '../registry.js';
import type { Target, TargetContext } from '../target.js';
import type { AdapterMessage, HostRequest } from './messages.js';

type Reply = Omit<Extract<AdapterMessage, { type: 'result' }>, 'type' | 'id'>;
type Send = (msg: AdapterMessage) => void;

/** adapterOptions of the builtin adapter: which built-in target, and its targetOptions. */
export interface BuiltinOptions {
  target: string;
  targetOptions: Record<string, unknown>;
}

/** Check the builtin adapter's options: every problem by its path (an adapter's error reply puts them on one line). */
export async function parseBuiltinOptions(options: Record<string, unknown>): Promise<BuiltinOptions> {
  const issues: ConfigIssue[] = Object.keys(options)
    .filter((k) => k !== 'target' && k !== 'targetOptions')
    .map((k) => ({ path: ['adapterOptions', k], message: 'unknown option (known: target, targetOptions)' }));
  const { target = 'process', targetOptions = {} } = options;
  const known = targetNames.filter((n) => n !== 'exec');
  if (typeof target !== 'string' || !known.includes(target))
    issues.push({
      path: ['adapterOptions', 'target'],
      message: `expected one of ${known.join(', ')}, got ${JSON.stringify(target)}`,
    });
  else if (typeof targetOptions !== 'object' || targetOptions === null || Array.isArray(targetOptions))
    issues.push({ path: ['adapterOptions', 'targetOptions'], message: 'expected a mapping' });
  else
    for (const i of await targetIssues(target, targetOptions as Record<string, unknown>))
      issues.push({ ...i, path: ['adapterOptions', ...i.path] });
  throwIfIssues('built-in adapter options are invalid', issues);
  return { target: target as string, targetOptions: targetOptions as Record<string, unknown> };
}

/** A checkpoint sink that writes each part as a file under `dir` and remembers the order. */
function folderSink(dir: string, parts: string[]): CheckpointSink {
  const fileOf = (name: string): string => {
    const file = path.join(dir, name);
    mkdirSync(path.dirname(file), { recursive: true });
    parts.push(name);
    return file;
  };
  return {
    async put(name: string, data: PartData): Promise<void> {
      const file = fileOf(name);
      if (data instanceof Uint8Array) writeFileSync(file, data);
      else await pipeline(Readable.from(data), createWriteStream(file));
    },
    async putFile(name: string, from: string): Promise<void> {
      await copyFile(from, fileOf(name));
    },
  };
}

/** Every file under `dir`, as relative posix paths, sorted. */
function listParts(dir: string, prefix = ''): string[] {
  return readdirSync(path.join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listParts(dir, `${prefix}${e.name}/`) : [`${prefix}${e.name}`]))
    .sort();
}

/** A checkpoint source over the part files the host materialised under `dir`. */
function folderSource(dir: string, seq: number, step: number): CheckpointSource {
  const names = listParts(dir);
  return {
    seq,
    step,
    parts: () => [...names],
    get: (name) => Promise.resolve(readFileSync(path.join(dir, name))),
    stream: (name) => createReadStream(path.join(dir, name)),
    writeFile: (name, to) => copyFile(path.join(dir, name), to),
  };
}

/** One adapter session: the target is created at boot or restore, when the host names its folders. */
class BuiltinAdapter {
  private opts: BuiltinOptions | null = null;
  private target: Target | null = null;

  constructor(private readonly send: Send) {}

  private async create(req: { workDir: string; sessionDir: string; stepMs: number }): Promise<Target> {
    const ctx: TargetContext = { ...req, options: this.opts!.targetOptions };
    const t = await createTarget(this.opts!.target, ctx);
    t.onHeartbeat(({ step, nonce, full, fs, mem, tool }) => {
      // only the contract's fields: a target's heartbeat object may carry its own extras
      this.send({ type: 'hb', step, nonce, full, ...(full ? { fs, mem, tool } : {}) });
    });
    t.onKillList?.((procs) =>
      this.send({
        type: 'pids',
        pids: procs.filter((p) => !p.group).map((p) => p.pid),
        groups: procs.filter((p) => p.group).map((p) => p.pid),
      }),
    );
    this.target = t;
    return t;
  }

  async handle(req: Exclude<HostRequest, { type: 'full' }>): Promise<Reply> {
    switch (req.type) {
      case 'describe': {
        this.opts = await parseBuiltinOptions(req.options);
        // What the in-process target says of itself before boot (as a host in 'describe' mode asks it).
        const workDir = mkdtempSync(path.join(os.tmpdir(), 'soak-builtin-describe-'));
        try {
          const t = await createTarget(this.opts.target, {
            workDir,
            sessionDir: workDir,
            stepMs: 5,
            options: this.opts.targetOptions,
          });
          const { kind: _kind, ...info } = t.describe();
          await t.destroy();
          const runtime = `built-in ${this.opts.target} target (adapters/builtin)`;
          return { protocolVersion: 1, runtime: this.opts.target, info: { ...info, runtime } };
        } finally {
          rmSync(workDir, { recursive: true, force: true });
        }
      }
      case 'boot':
        await (await this.create(req)).boot();
        return {};
      case 'checkpoint': {
        const parts: string[] = [];
        const r = await this.target!.checkpoint(folderSink(req.dir, parts), { skewMs: req.skewMs });
        return { step: r.step, pauseMs: r.pauseMs, parts, meta: r.meta };
      }
      case 'restore':
        await (await this.create(req)).restore(folderSource(req.dir, req.seq, req.step));
        return {};
      case 'destroy':
        await this.target?.destroy();
        this.target = null;
        return {};
    }
  }

  full(): void {
    this.target?.requestFullHeartbeat();
  }
}

/** Serve the protocol on this process's stdin/stdout until `destroy` or end of input. */
export function serveBuiltin(): void {
  const send: Send = (msg) => void process.stdout.write(`${JSON.stringify(msg)}\n`);
  const adapter = new BuiltinAdapter(send);
  let queue = Promise.resolve(); // one request at a time, in order (a host waits for each reply anyway)
  createInterface({ input: process.stdin }).on('line', (line) => {
    const req = JSON.parse(line) as HostRequest;
    if (req.type === 'full') return adapter.full();
    queue = queue
      .then(() => adapter.handle(req))
      .then(
        (reply) => {
          send({ type: 'result', id: req.id, ...reply });
          if (req.type === 'destroy') setImmediate(() => process.exit(0));
        },
        (err: unknown) => send({ type: 'error', id: req.id, message: (err as Error).message.split('\n').join(' ') }),
      );
  });
  process.stdin.on('end', () => void adapter.handle({ type: 'destroy', id: 0 }).finally(() => process.exit(0)));
}
