// The embedded default target: the agent is a host process tree (agent + tool process + workspace folder).
// Its checkpoint is cooperative: pause at a step boundary, take memory and tool state, capture the workspace, resume.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { sleep, stopwatch } from '../../core/clock.js';
import { type ConfigIssue, throwIfIssues } from '../../core/config-issues.js';
import { TargetError } from '../../core/errors.js';
import { readMessages } from '../../journal/ndjson.js';
import type { CheckpointSink, CheckpointSource } from '../../store/types.js';
import type { Heartbeat } from '../../check/heartbeat.js';
import type { EffectsConfig } from '../../effects/plan.js';
import type { ProbeLine } from '../../check/survival.js';
import type { CheckpointOptions, CheckpointResult, Target, TargetContext } from '../target.js';
import { ProcessProbe } from './probe.js';
import { probeOptions } from '../probe-options.js';
import { PhaseRecorder, type PhaseMarks } from '../phase-marks.js';

/** targetOptions of the process target, checked by hand: zod's import is slow at every host start, counted as downtime. */
export function parseProcessOptions(options: Record<string, unknown>): {
  heapKiB: number;
  effects?: EffectsConfig;
  probe?: string;
  clockAfter?: number[];
} {
  const unknown = Object.keys(options).filter((k) => !['heapKiB', 'effects', 'probe', 'probeClockAfter'].includes(k));
  const heapKiB = options.heapKiB ?? 1024;
  const issues: ConfigIssue[] = unknown.map((k) => ({
    path: ['targetOptions', k],
    message: 'unknown option for target "process" (known: heapKiB)',
  }));
  if (typeof heapKiB !== 'number' || !Number.isInteger(heapKiB) || heapKiB < 1 || heapKiB > 1 << 20) {
    const message = `expected an integer from 1 to ${1 << 20}, got ${JSON.stringify(heapKiB)}`;
    issues.push({ path: ['targetOptions', 'heapKiB'], message });
  }
  const effects = options.effects === undefined ? undefined : effectsConfig(options.effects, issues);
  const probe = probeOptions(options, issues);
  throwIfIssues('process target options are invalid', issues);
  return { heapKiB: heapKiB as number, ...(effects ? { effects } : {}), ...probe };
}

/** The effects config the runner adds to targetOptions when the scenario enables effects (run/effects-run.ts). */
export function effectsConfig(raw: unknown, issues: ConfigIssue[]): EffectsConfig | undefined {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Partial<Record<keyof EffectsConfig, unknown>>;
  const ok =
    typeof r.ledger === 'string' &&
    /^127\.0\.0\.1:\d{1,5}$/.test(r.ledger) &&
    typeof r.seed === 'number' &&
    typeof r.everySteps === 'number' &&
    Number.isInteger(r.everySteps) &&
    r.everySteps >= 1;
  if (ok) return r as EffectsConfig;
  issues.push({
    path: ['targetOptions', 'effects'],
    message: "set by the runner from the scenario's effects field, not by hand (use effects: { everySteps: N })",
  });
  return undefined;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const agentScript = path.join(here, 'agent.js');
const toolScript = path.join(here, 'tool.js');

interface Paused {
  step: number;
  memFile: string;
  tool: { step: number; digest: string };
}

/** Create a process target. */
export function createProcessTarget(ctx: TargetContext): Target {
  const opts = parseProcessOptions(ctx.options);
  return new ProcessTarget(ctx, opts.heapKiB * 1024, opts.effects, opts.probe, opts.clockAfter);
}

class ProcessTarget implements Target {
  readonly kind = 'process';
  private agent: ChildProcess | null = null;
  private agentExit: Promise<void> | null = null;
  private tool: ChildProcess | null = null;
  private readonly listeners: ((hb: Heartbeat) => void)[] = [];
  private readonly probeListeners: ((line: ProbeLine) => void)[] = [];
  private readonly probe: ProcessProbe | null;
  /** In a checkpoint pause: the probe starts no process then (a spawn blocks this loop, which would stretch it). */
  private pausing = false;
  private pausedWaiter: ((p: Paused) => void) | null = null;
  private startedWaiter: (() => void) | null = null;
  private standingByWaiter: (() => void) | null = null;
  /** The agent and tool were pre-started by warmUp() and wait for a 'start' command. */
  private prepared = false;
  private readonly workspace: string;
  private readonly handoff: string;
  /** When each step of the last restore ended (the host's restore timeline shows them). */
  private readonly phases = new PhaseRecorder();

  constructor(
    private readonly ctx: TargetContext,
    private readonly heapBytes: number,
    private readonly effects?: EffectsConfig,
    probeBinary?: string,
    clockAfter: readonly number[] = [],
  ) {
    this.workspace = path.join(ctx.sessionDir, 'workspace');
    this.handoff = path.join(ctx.workDir, 'handoff');
    mkdirSync(this.handoff, { recursive: true, mode: 0o700 });
    const emit = (line: ProbeLine): void => this.probeListeners.forEach((l) => l(line));
    const [dir, pausing] = [path.join(ctx.sessionDir, 'probe'), (): boolean => this.pausing];
    this.probe =
      probeBinary === undefined ? null : new ProcessProbe(probeBinary, dir, this.workspace, emit, pausing, clockAfter);
  }

  async boot(): Promise<void> {
    rmSync(this.workspace, { recursive: true, force: true });
    mkdirSync(this.workspace, { recursive: true });
    await this.start(null);
    this.probe?.start(); // in the background: it is not part of the boot; the runner waits for its ready line
  }

  onProbe(listener: (line: ProbeLine) => void): void {
    this.probeListeners.push(listener);
  }

  async restore(source: CheckpointSource): Promise<void> {
    const fresh = `${this.workspace}.restoring`;
    rmSync(fresh, { recursive: true, force: true });
    mkdirSync(fresh, { recursive: true });
    for (const name of source.parts()) {
      if (name.startsWith('workspace/'))
        await source.writeFile(name, path.join(fresh, name.slice('workspace/'.length)));
    }
    this.phases.mark('workspaceWritten');
    rmSync(this.workspace, { recursive: true, force: true });
    renameSync(fresh, this.workspace);
    this.phases.mark('workspaceSwapped');
    const memFile = path.join(this.handoff, 'restore-mem.bin');
    await source.writeFile('memory', memFile);
    const tool = JSON.parse((await source.get('tool')).toString()) as { step: number; digest: string };
    this.phases.mark('memoryWritten');
    // The probe examines in the background while a cold agent boots (this loop only waits then): its process starts
    // block the loop 10-20 ms each, which after `started` would delay the restore's end (bench/probe-cost).
    const cold = !this.prepared;
    const started = this.start({ memFile, tool });
    if (cold) this.probe?.resumed();
    await started;
    this.phases.mark('agentStarted');
    if (!cold) this.probe?.resumed();
  }

  restoreMarks(): PhaseMarks {
    return this.phases.marks;
  }

  /** Warm standby: start the agent and its tool now, idle, so a restore only hands them the state (no process start). */
  async warmUp(): Promise<void> {
    const standingBy = new Promise<void>((resolve) => (this.standingByWaiter = resolve));
    this.spawnPair(['--standby'], []);
    await this.whileAgentLives(standingBy, 'standing by');
    this.prepared = true;
  }

  /** Start the agent working: fresh (null) or from restored memory and tool state; uses prepared processes if any. */
  private async start(restored: { memFile: string; tool: { step: number; digest: string } } | null): Promise<void> {
    const started = new Promise<void>((resolve) => (this.startedWaiter = resolve));
    if (this.prepared) {
      this.prepared = false;
      this.send({ cmd: 'start', ...(restored ?? {}) });
    } else if (restored) {
      this.spawnPair(['--restore-mem', restored.memFile], [String(restored.tool.step), restored.tool.digest]);
    } else {
      this.spawnPair([], []);
    }
    await this.whileAgentLives(started, 'start');
  }

  /** Resolve with `waiting`, or reject if the agent exits first. */
  private async whileAgentLives(waiting: Promise<void>, what: string): Promise<void> {
    const agent = this.agent!;
    const exited = new Promise<never>((_, reject) =>
      agent.once('exit', (code, signal) =>
        reject(
          new TargetError(
            `process target: agent exited during ${what} (exit code ${String(code)}, signal ${String(signal)})`,
          ),
        ),
      ),
    );
    exited.catch(() => {});
    await Promise.race([waiting, exited]);
  }

  private spawnPair(extra: string[], toolArgs: string[]): void {
    const args = [
      '--workspace',
      this.workspace,
      '--handoff',
      this.handoff,
      '--step-ms',
      String(this.ctx.stepMs),
      '--heap-bytes',
      String(this.heapBytes),
      ...(this.effects ? ['--effects', JSON.stringify(this.effects)] : []),
      ...extra,
    ];
    // node:child_process rather than execa here: execa's import is slow at every host start, and this is the resume path.
    // The tool and the agent start side by side; the agent gets the tool's stdin and stdout as its fds 3 and 4.
    const tool = spawn(process.execPath, [toolScript, ...toolArgs], { stdio: ['pipe', 'pipe', 'inherit'] });
    const agent = spawn(process.execPath, [agentScript, ...args], {
      stdio: ['pipe', 'pipe', 'inherit', tool.stdin, tool.stdout],
    });
    tool.stdin.destroy();
    tool.stdout.destroy();
    this.tool = tool;
    this.agent = agent;
    void readMessages(agent.stdout!, (msg) => this.onMessage(msg));
    this.agentExit = new Promise((resolve) => agent.once('exit', () => resolve()));
  }

  private onMessage(msg: Record<string, unknown>): void {
    if (msg.ev === 'hb') {
      const hb = msg as unknown as Heartbeat;
      for (const l of this.listeners) l(hb);
    } else if (msg.ev === 'paused') {
      this.pausedWaiter?.(msg as unknown as Paused);
      this.pausedWaiter = null;
    } else if (msg.ev === 'started') {
      this.startedWaiter?.();
      this.startedWaiter = null;
    } else if (msg.ev === 'standing-by') {
      this.standingByWaiter?.();
      this.standingByWaiter = null;
    }
  }

  private send(cmd: object): void {
    if (!this.agent?.stdin) throw new TargetError('process target: agent is not running');
    this.agent.stdin.write(`${JSON.stringify(cmd)}\n`);
  }

  private readWorkspace(): [string, Buffer][] {
    return readdirSync(this.workspace)
      .sort()
      .map((f) => [`workspace/${f}`, readFileSync(path.join(this.workspace, f))]);
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    // Negative control: the filesystem is captured first while the agent keeps working, memory skewMs later.
    let files = opts.skewMs > 0 ? this.readWorkspace() : null;
    if (opts.skewMs > 0) await sleep(opts.skewMs);
    const paused = new Promise<Paused>((resolve) => (this.pausedWaiter = resolve));
    const frozen = stopwatch();
    this.send({ cmd: 'pause' });
    this.pausing = true;
    const p = await paused;
    const memory = readFileSync(p.memFile);
    files ??= this.readWorkspace();
    this.send({ cmd: 'resume' });
    const pauseMs = frozen();
    this.pausing = false;
    await sink.put('memory', memory);
    await sink.put('tool', Buffer.from(JSON.stringify(p.tool)));
    for (const [name, data] of files) await sink.put(name, data);
    const workspaceBytes = files.reduce((s, [, d]) => s + d.length, 0);
    return { step: p.step, pauseMs, meta: { memoryBytes: memory.length, workspaceBytes, heapBytes: this.heapBytes } };
  }

  onHeartbeat(listener: (hb: Heartbeat) => void): void {
    this.listeners.push(listener);
  }

  requestFullHeartbeat(): void {
    this.send({ cmd: 'full' });
  }

  async destroy(): Promise<void> {
    await this.probe?.stop();
    if (this.agent) {
      this.agent.stdin?.end();
      this.agent.kill('SIGKILL');
      this.tool?.kill('SIGKILL');
      await this.agentExit;
      this.agent = null;
      this.tool = null;
    }
    rmSync(this.handoff, { recursive: true, force: true });
  }

  describe(): Record<string, string | number | boolean> {
    return {
      kind: 'process',
      checkpoint: 'cooperative (agent pauses at a step boundary)',
      stepMs: this.ctx.stepMs,
      heapBytes: this.heapBytes,
    };
  }
}
