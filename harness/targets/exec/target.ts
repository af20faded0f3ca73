// The exec target: any runtime through the public target protocol (messages.ts), driven over an adapter's stdio.
// Checkpoint parts arrive as files the adapter wrote into a folder the host named; they go into the store in one commit.
// A kill list is relayed only once proven (kill-proof.ts); a reply the protocol does not allow is an AdapterError.
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../../check/heartbeat.js';
import { parseProbeLine, type ProbeLine } from '../../check/survival.js';
import { type ConfigIssue, type FieldPath, throwIfIssues } from '../../core/config-issues.js';
import { AdapterError, ConfigError, TargetError } from '../../core/errors.js';
import type { EffectsConfig } from '../../effects/plan.js';
import { effectsConfig } from '../process/target.js';
import { quotedExcerpt } from '../../core/visible.js';
import { type KillEntry, neverKilled } from '../../core/kill-guard.js';
import type { CheckpointSink, CheckpointSource } from '../../store/types.js';
import type { CheckpointOptions, CheckpointResult, Target, TargetContext, TargetInfo } from '../target.js';
import { AdapterProcess } from './adapter-process.js';
import { proveKillList } from './kill-proof.js';
import { subreaperLauncher } from './launcher.js';
import { PROTOCOL_VERSION } from './messages.js';
import { type PhaseMarks, PhaseRecorder, RUNS_FROM } from '../phase-marks.js';

/** targetOptions of the exec target (the scenario's `adapter` and `adapterOptions`, folded in at load). */
export interface ExecOptions {
  adapter: string;
  adapterOptions: Record<string, unknown>;
  /** Set by the runner when the scenario enables effects (run/effects-run.ts); sent only to an adapter that can. */
  effects?: EffectsConfig;
  /** Set by `soak target check --matrix`: the probe binary, sent only to an adapter that runs it. */
  probe?: string;
}

/** Check the exec target's options; throws a ConfigIssuesError listing every problem. */
export function parseExecOptions(options: Record<string, unknown>): ExecOptions {
  const issues: ConfigIssue[] = [];
  const problem = (path: FieldPath, message: string): number => issues.push({ path, message });
  const known = ['adapter', 'adapterOptions', 'effects', 'probe'];
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  for (const k of unknown)
    problem(['targetOptions', k], 'unknown option for target "exec" (known: adapter, adapterOptions)');
  const { adapter, adapterOptions = {} } = options;
  if (typeof adapter !== 'string' || adapter.length === 0)
    problem(['adapter'], 'target "exec" needs `adapter: <path to the adapter program>`');
  else if (!existsSync(adapter)) problem(['adapter'], `${adapter} does not exist`);
  else if (!statSync(adapter).isFile()) problem(['adapter'], `${adapter} is not a regular file (a program to run)`);
  if (typeof adapterOptions !== 'object' || adapterOptions === null || Array.isArray(adapterOptions))
    problem(['adapterOptions'], 'expected a mapping');
  const effects = options.effects === undefined ? undefined : effectsConfig(options.effects, issues);
  const probe = options.probe;
  if (probe !== undefined && (typeof probe !== 'string' || !path.isAbsolute(probe)))
    problem(['targetOptions', 'probe'], 'set by `soak target check --matrix`: an absolute path');
  throwIfIssues('exec target options are invalid', issues);
  return {
    adapter: adapter as string,
    adapterOptions: adapterOptions as Record<string, unknown>,
    ...(effects ? { effects } : {}),
    ...(typeof probe === 'string' ? { probe } : {}),
  };
}

/** Start the adapter (under the subreaper launcher), agree on the protocol version and learn what it drives. */
export async function createExecTarget(ctx: TargetContext): Promise<Target> {
  const opts = parseExecOptions(ctx.options);
  const adapter = new AdapterProcess(opts.adapter, await subreaperLauncher());
  const reply = await adapter.request({
    type: 'describe',
    protocolVersion: PROTOCOL_VERSION,
    options: opts.adapterOptions,
  });
  if (reply.protocolVersion !== PROTOCOL_VERSION) {
    const err = adapter.fault(
      `speaks target protocol version ${String(reply.protocolVersion)}; this host speaks ${PROTOCOL_VERSION}`,
    );
    await adapter.kill();
    throw err;
  }
  if (opts.effects !== undefined && reply.effects === undefined) {
    await adapter.kill();
    throw new ConfigError(effectsRefusal(opts.adapter));
  }
  const info = {
    ...reply.info,
    ...(reply.runtime !== undefined ? { runtimeId: reply.runtime } : {}),
    ...(reply.effects !== undefined ? { effectsReach: reply.effects.reach } : {}),
    ...(reply.promises !== undefined ? { promises: reply.promises.join(',') } : {}),
  };
  const probe: ProbePlan =
    opts.probe === undefined
      ? null
      : reply.probe !== undefined
        ? { binary: opts.probe }
        : `adapter ${path.basename(opts.adapter)} declares no probe capability (docs/target-protocol.md)`;
  return new ExecTarget(ctx, adapter, info, reply.limitations ?? [], opts.effects, probe);
}

/** The one line that refuses effects on an adapter whose `describe` did not declare how its sandbox reaches the ledger. */
export function effectsRefusal(adapter: string): string {
  return (
    `effects: adapter ${adapter} cannot reach the effect ledger (its describe answer declares no ` +
    "`effects: { reach: 'loopback' }` capability, docs/effects.md)"
  );
}

/** Part names are relative paths inside the checkpoint folder: nothing absolute, nothing climbing out (null: outside). */
function safePart(name: string): string | null {
  const norm = path.posix.normalize(name);
  return path.isAbsolute(norm) || norm.startsWith('..') || norm === '.' ? null : norm;
}

/** The probe: sent to the adapter (its binary), not run (why: the adapter cannot), or not asked for (null). */
type ProbePlan = { binary: string } | string | null;

class ExecTarget implements Target {
  readonly kind = 'exec';
  private readonly listeners: ((hb: Heartbeat) => void)[] = [];
  private readonly probeListeners: ((line: ProbeLine) => void)[] = [];
  private readonly killListeners: ((procs: KillEntry[]) => void)[] = [];
  private seq = 0;
  /** The newest restore's phase ends (none before a restore). */
  private restorePhases: PhaseRecorder | null = null;

  constructor(
    private readonly ctx: TargetContext,
    private readonly adapter: AdapterProcess,
    private readonly info: TargetInfo,
    private readonly limitations: string[],
    private readonly effects: EffectsConfig | undefined,
    private readonly probe: ProbePlan,
  ) {
    adapter.onMessageOf((msg) => {
      if (msg.type === 'probe') {
        const line = parseProbeLine(msg.line);
        if (typeof line === 'string') return void adapter.fault(`a probe line the host refuses: ${line}`);
        for (const l of this.probeListeners) l(line);
      }
      if (msg.type === 'hb') {
        const { type: _t, ...hb } = msg;
        for (const l of this.listeners) l(hb);
      } else if (msg.type === 'pids') {
        if (adapter.identity === null) return; // it never started: its fault is already told
        // the runner is this host's parent; the host leads its own group
        const proof = proveKillList(msg, adapter.identity, neverKilled(process.ppid, process.pid));
        if (!proof.ok) return void adapter.fault(`a kill list the host refuses: ${proof.refusal}`);
        if (proof.dropped.length > 0)
          adapter.log.line(`adapter: kill list: ${proof.dropped.join(', ')} already gone (nothing to kill)\n`);
        for (const l of this.killListeners) l(proof.entries);
      } else if (msg.type === 'log') adapter.log.line(`adapter: ${msg.message}\n`);
    });
  }

  async boot(): Promise<void> {
    await this.adapter.request({
      type: 'boot',
      workDir: this.ctx.workDir,
      sessionDir: this.ctx.sessionDir,
      stepMs: this.ctx.stepMs,
      ...(this.effects ? { effects: this.effects } : {}),
      ...this.probeField(),
    });
    this.unprobed();
  }

  /** The request's `probe` field: only for an adapter that runs the probe. */
  private probeField(): { probe?: { binary: string } } {
    return typeof this.probe === 'object' && this.probe !== null ? { probe: this.probe } : {};
  }

  /** Asked for a probe the adapter cannot run: say so once per boot or restore, every class not applicable. */
  private unprobed(): void {
    if (typeof this.probe === 'string')
      for (const l of this.probeListeners) l({ event: 'unprobed', reason: this.probe });
  }

  onProbe(listener: (line: ProbeLine) => void): void {
    this.probeListeners.push(listener);
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    const dir = path.join(this.ctx.workDir, `checkpoint-${this.seq++}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    try {
      const r = await this.adapter.request({ type: 'checkpoint', dir, skewMs: opts.skewMs });
      const reply = (): string => quotedExcerpt(JSON.stringify(r));
      if (r.step === undefined || r.pauseMs === undefined || r.parts === undefined)
        throw this.adapter.fault(`a checkpoint reply needs step, pauseMs and parts: ${reply()}`);
      const outside = r.parts.find((name) => safePart(name) === null);
      if (outside !== undefined)
        throw this.adapter.fault(`a checkpoint part outside its folder (${quotedExcerpt(outside)}): ${reply()}`);
      for (const name of r.parts) await sink.putFile(safePart(name)!, path.join(dir, safePart(name)!));
      return { step: r.step, pauseMs: r.pauseMs, meta: r.meta ?? {} };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  async restore(source: CheckpointSource): Promise<void> {
    const phases = (this.restorePhases = new PhaseRecorder());
    const dir = path.join(this.ctx.workDir, `restore-${source.seq}`);
    rmSync(dir, { recursive: true, force: true });
    for (const name of source.parts()) {
      const part = safePart(name);
      if (part === null) throw new TargetError(`checkpoint ${source.seq} holds a part outside its folder: ${name}`);
      const file = path.join(dir, part);
      mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
      await source.writeFile(name, file);
    }
    // The parts are written (the mark ends that phase too). The sandbox may run from the moment the adapter has this
    // request (the host cannot see when it did): the time to its first full heartbeat is measured from here, an upper
    // bound of how long it ran before it reported.
    phases.mark(RUNS_FROM);
    await this.adapter.request({
      type: 'restore',
      dir,
      seq: source.seq,
      step: source.step,
      workDir: this.ctx.workDir,
      sessionDir: this.ctx.sessionDir,
      stepMs: this.ctx.stepMs,
      ...(this.effects ? { effects: this.effects } : {}),
      ...this.probeField(),
    });
    phases.mark('adapterRestored');
    this.unprobed();
  }

  readonly restoreMarks = (): PhaseMarks => this.restorePhases?.marks ?? {};

  onHeartbeat(listener: (hb: Heartbeat) => void): void {
    this.listeners.push(listener);
  }

  onKillList(listener: (procs: KillEntry[]) => void): void {
    this.killListeners.push(listener);
  }

  onFault(listener: (err: Error) => void): void {
    this.adapter.onFault(listener);
  }

  requestFullHeartbeat(): void {
    this.adapter.notify({ type: 'full' });
  }

  /** Ask the adapter to stop; a hung one is SIGKILLed after 30 s and the destroy fails with its AdapterError. */
  async destroy(): Promise<void> {
    let hung: AdapterError | null = null;
    try {
      await this.adapter.request({ type: 'destroy' }, 30_000);
    } catch (err) {
      if (err instanceof AdapterError) hung = err; // no answer in time (or a fault before): the adapter's fault
    }
    await this.adapter.kill();
    if (hung !== null) throw hung;
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
