// The exec target: any runtime through the public target protocol (messages.ts), driven over an adapter's stdio.
// Checkpoint parts arrive as files the adapter wrote into a folder the host named; they go into the store in one commit.
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../../check/heartbeat.js';
import { ConfigError, TargetError } from '../../core/errors.js';
import type { CheckpointSink, CheckpointSource } from '../../store/types.js';
import type { CheckpointOptions, CheckpointResult, KillList, Target, TargetContext, TargetInfo } from '../target.js';
import { AdapterProcess } from './adapter-process.js';
import { PROTOCOL_VERSION } from './messages.js';

/** targetOptions of the exec target (the scenario's `adapter` and `adapterOptions`, folded in at load). */
export interface ExecOptions {
  adapter: string;
  adapterOptions: Record<string, unknown>;
}

/** Check the exec target's options; throws a ConfigError listing every problem. */
export function parseExecOptions(options: Record<string, unknown>): ExecOptions {
  const problems: string[] = [];
  const unknown = Object.keys(options).filter((k) => k !== 'adapter' && k !== 'adapterOptions');
  for (const k of unknown)
    problems.push(`targetOptions.${k}: unknown option for target "exec" (known: adapter, adapterOptions)`);
  const { adapter, adapterOptions = {} } = options;
  if (typeof adapter !== 'string' || adapter.length === 0)
    problems.push('adapter: target "exec" needs `adapter: <path to the adapter program>`');
  else if (!existsSync(adapter)) problems.push(`adapter: ${adapter} does not exist`);
  else if (!statSync(adapter).isFile()) problems.push(`adapter: ${adapter} is not a regular file (a program to run)`);
  if (typeof adapterOptions !== 'object' || adapterOptions === null || Array.isArray(adapterOptions))
    problems.push('adapterOptions: expected a mapping');
  if (problems.length > 0) throw new ConfigError(`exec target options are invalid:\n  ${problems.join('\n  ')}`);
  return { adapter: adapter as string, adapterOptions: adapterOptions as Record<string, unknown> };
}

/** Start the adapter, agree on the protocol version and learn what it drives. */
export async function createExecTarget(ctx: TargetContext): Promise<Target> {
  const opts = parseExecOptions(ctx.options);
  const adapter = new AdapterProcess(opts.adapter);
  const reply = await adapter.request({
    type: 'describe',
    protocolVersion: PROTOCOL_VERSION,
    options: opts.adapterOptions,
  });
  if (reply.protocolVersion !== PROTOCOL_VERSION) {
    await adapter.kill();
    throw new TargetError(
      `adapter ${opts.adapter} speaks target protocol version ${String(reply.protocolVersion)}; this host speaks ${PROTOCOL_VERSION}`,
    );
  }
  const info = { ...reply.info, ...(reply.runtime !== undefined ? { runtimeId: reply.runtime } : {}) };
  return new ExecTarget(ctx, adapter, info, reply.limitations ?? []);
}

/** Part names are relative paths inside the checkpoint folder: nothing absolute, nothing climbing out. */
function safePart(name: string): string {
  const norm = path.posix.normalize(name);
  if (path.isAbsolute(norm) || norm.startsWith('..') || norm === '.')
    throw new TargetError(`adapter named a checkpoint part outside its folder: ${JSON.stringify(name)}`);
  return norm;
}

class ExecTarget implements Target {
  readonly kind = 'exec';
  private readonly listeners: ((hb: Heartbeat) => void)[] = [];
  private readonly killListeners: ((k: KillList) => void)[] = [];
  private seq = 0;

  constructor(
    private readonly ctx: TargetContext,
    private readonly adapter: AdapterProcess,
    private readonly info: TargetInfo,
    private readonly limitations: string[],
  ) {
    adapter.onMessageOf((msg) => {
      if (msg.type === 'hb') {
        const { type: _t, ...hb } = msg;
        for (const l of this.listeners) l(hb);
      } else if (msg.type === 'pids') {
        for (const l of this.killListeners) l({ pids: msg.pids, groups: msg.groups });
      } else if (msg.type === 'log') process.stderr.write(`adapter: ${msg.message}\n`);
    });
  }

  async boot(): Promise<void> {
    await this.adapter.request({
      type: 'boot',
      workDir: this.ctx.workDir,
      sessionDir: this.ctx.sessionDir,
      stepMs: this.ctx.stepMs,
    });
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    const dir = path.join(this.ctx.workDir, `checkpoint-${this.seq++}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      const r = await this.adapter.request({ type: 'checkpoint', dir, skewMs: opts.skewMs });
      if (r.step === undefined || r.pauseMs === undefined || r.parts === undefined)
        throw new TargetError(`adapter ${this.adapter.file}: a checkpoint reply needs step, pauseMs and parts`);
      for (const name of r.parts) await sink.putFile(safePart(name), path.join(dir, safePart(name)));
      return { step: r.step, pauseMs: r.pauseMs, meta: r.meta ?? {} };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async restore(source: CheckpointSource): Promise<void> {
    const dir = path.join(this.ctx.workDir, `restore-${source.seq}`);
    rmSync(dir, { recursive: true, force: true });
    for (const name of source.parts()) {
      const file = path.join(dir, safePart(name));
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      await source.writeFile(name, file);
    }
    await this.adapter.request({
      type: 'restore',
      dir,
      seq: source.seq,
      step: source.step,
      workDir: this.ctx.workDir,
      sessionDir: this.ctx.sessionDir,
      stepMs: this.ctx.stepMs,
    });
  }

  onHeartbeat(listener: (hb: Heartbeat) => void): void {
    this.listeners.push(listener);
  }

  onKillList(listener: (k: KillList) => void): void {
    this.killListeners.push(listener);
  }

  requestFullHeartbeat(): void {
    this.adapter.notify({ type: 'full' });
  }

  async destroy(): Promise<void> {
    try {
      await this.adapter.request({ type: 'destroy' }, 30_000);
    } catch {
      // a dead or hung adapter: killed below
    }
    await this.adapter.kill();
  }

  describe(): TargetInfo {
    const info: TargetInfo = {
      kind: 'exec',
      adapter: path.basename(this.adapter.file),
      protocolVersion: PROTOCOL_VERSION,
    };
    Object.assign(info, this.info);
    if (this.limitations.length > 0) info.limitations = this.limitations.join('; ');
    return info;
  }
}
