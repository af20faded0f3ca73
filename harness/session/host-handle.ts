// The runner's handle on one session-host process: spawn it in its own process group, follow its messages,
// SIGKILL the whole group, and read its output to EOF so everything it said before dying is counted.
import { EventEmitter } from 'node:events';
import { closeSync, openSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode, type ResultPromise } from 'execa';
import { monotonicMs, nowMs } from '../core/clock.js';
import { EXIT } from '../core/errors.js';
import { type KillEntry, neverKilled, signalEntries } from '../core/kill-guard.js';
import { readProcStat } from '../core/proc.js';
import { CHECKPOINT_NOW_SIGNAL, type HostConfig, type HostMessage } from './protocol.js';
import { readMessages } from '../journal/ndjson.js';
import type { EffectsClaim } from '../check/heartbeat.js';
import type { ProbeLine } from '../check/survival.js';
import { HAND_OFF_LINE, type HandOff } from './standby.js';
import { nextAnswer, timedOutError } from './liveness.js';

const hostScript = path.join(path.dirname(fileURLToPath(import.meta.url)), 'host-main.js');

export interface HostExit {
  exitCode: number | undefined;
  signal: string | undefined;
}

/** Live view of a host: the highest step it reported, its session nonce, its committed and in-flight checkpoints. */
export class HostHandle extends EventEmitter<{ msg: [HostMessage, number]; exit: [HostExit] }> {
  readonly pid: number;
  maxStep = -1;
  nonce: string | null = null;
  /** What the session's first full heartbeat said of its external effects (sessions that emit them: issue 34). */
  effectsClaim: EffectsClaim | null = null;
  /** The coding workload's failure count in the session's first full heartbeat: the state this host started from. */
  workFailures: number | null = null;
  /** The guest-state probe's first word other than ready (an examination, unprobed, an error), when it runs one. */
  probeWord: Exclude<ProbeLine, { event: 'ready' }> | null = null;
  lastCommitted: { seq: number; step: number } | null = null;
  /** The checkpoint this host restored (committed and acknowledged before it started), once its restore ended. */
  restoredFrom: { seq: number; step: number } | null = null;
  inFlightSeq: number | null = null;
  restoring = false;
  exited: HostExit | null = null;
  errorMessage: string | null = null;
  /** The errno code (ENOSPC...) of the host's error message, if it sent one with a code. */
  errorCode: string | null = null;
  /** The exit code the host said it exits with, with its error message (5: an adapter fault). */
  errorExitCode: number | null = null;
  /**
   * Processes outside the group that the target reported (a detached sandbox), each proven the target's own by the
   * host: killed with the group once checked again (same start time, not on the never-list: core/kill-guard.ts).
   */
  killList: KillEntry[] = [];
  /** The host process's /proc start time, read at spawn ('' without /proc): journaled with its kill lists. */
  readonly startTime: string;
  /** Resolves once stdout reached EOF and the process has exited. */
  readonly done: Promise<HostExit>;
  /** Resolves with the monotonic time the host process's exit was seen (its SIGCHLD), before its output is read to EOF. */
  readonly died: Promise<number>;
  /** The monotonic time the host process's exit was seen (null: not yet); what `died` resolves with. */
  diedAt: number | null = null;
  private readonly child: ResultPromise;

  /**
   * `answerMs`: after a wait on the session runs out, how long to wait for the host's own sign of life (its `alive`)
   * before calling the host hung (liveness.ts); the scenario's hostTimeoutMs.
   */
  constructor(
    cfg: HostConfig,
    logFile: string,
    readonly answerMs = 10_000,
  ) {
    super();
    // The host writes its log straight into the file (its own descriptor, O_APPEND): relayed through the runner, as
    // execa's { file } does, what was still in flight when the runner exited was lost (12 MiB of adapter log: 3 MB kept).
    const log = openSync(logFile, 'a');
    try {
      this.child = execaNode(hostScript, [JSON.stringify(cfg)], {
        detached: true,
        // a standby waits for its hand-off on stdin (and exits when the runner, holding the other end, is gone)
        stdin: cfg.mode === 'standby' || cfg.mode === 'pool' ? 'pipe' : 'ignore',
        stdout: 'pipe',
        stderr: log as 3, // a descriptor, passed through to the host (execa's types list only 3-9; any is accepted)
        buffer: false,
        reject: false,
        cleanup: true,
      });
    } finally {
      closeSync(log); // the host holds its own copy
    }
    if (this.child.pid === undefined) throw new Error('session host failed to spawn');
    this.pid = this.child.pid;
    this.startTime = readProcStat(this.pid)?.startTime ?? '';
    this.died = new Promise((resolve) => this.child.once('exit', () => resolve((this.diedAt = nowMs()))));
    const eof = readMessages(this.child.stdout!, (m) => this.onMessage(m as unknown as HostMessage));
    this.done = Promise.all([eof, this.child]).then(([, r]) => {
      this.exited = { exitCode: r.exitCode, signal: r.signal };
      removeHostScratch(cfg.scratchDir, this.pid);
      this.emit('exit', this.exited);
      return this.exited;
    });
  }

  private onMessage(msg: HostMessage): void {
    const t = nowMs();
    switch (msg.ev) {
      case 'hb':
        this.maxStep = Math.max(this.maxStep, msg.step);
        if (msg.full && this.nonce === null) this.nonce = msg.nonce;
        if (msg.full && this.effectsClaim === null && msg.effects) this.effectsClaim = msg.effects;
        if (msg.full && this.workFailures === null && msg.work) this.workFailures = msg.work.failures;
        break;
      case 'ckpt-begin':
        this.inFlightSeq = msg.seq;
        break;
      case 'ckpt-commit':
        this.lastCommitted = { seq: msg.seq, step: msg.step };
        this.inFlightSeq = null;
        break;
      case 'restore-begin':
        this.restoring = true;
        break;
      case 'restore-end':
        this.restoring = false;
        this.restoredFrom = { seq: msg.seq, step: msg.step };
        break;
      case 'kill-list':
        this.killList = msg.procs;
        break;
      case 'probe':
        if (this.probeWord === null && msg.line.event !== 'ready') this.probeWord = msg.line;
        break;
      case 'error':
        this.errorMessage = msg.message;
        this.errorCode = msg.code ?? null;
        this.errorExitCode = msg.exitCode ?? null;
        break;
      default:
        break;
    }
    this.emit('msg', msg, t);
  }

  /**
   * Wait for the first message matching `pred`; rejects if the host exits first or `timeoutMs` passes: then, once the
   * host's next sign of life tells who is stuck (liveness.ts), with SessionHungError (the host answered: the session
   * is stuck) or HostTimeoutError (the host did not, or was itself stopped).
   */
  waitFor<M extends HostMessage>(
    pred: (m: HostMessage) => m is M,
    timeoutMs: number,
    what?: string,
  ): Promise<{ msg: M; t: number }>;
  waitFor(
    pred: (m: HostMessage) => boolean,
    timeoutMs: number,
    what?: string,
  ): Promise<{ msg: HostMessage; t: number }>;
  waitFor(
    pred: (m: HostMessage) => boolean,
    timeoutMs: number,
    what = 'such message',
  ): Promise<{ msg: HostMessage; t: number }> {
    const deadline = monotonicMs() + timeoutMs;
    return new Promise((resolve, reject) => {
      let settled = false;
      // Past the bound the message still counts if it comes before the host's first tick sent after the bound (the pipe
      // keeps the host's order): sent at most a tick late, it was not stuck, and a runner that stalled reads it late.
      const timer = setTimeout(() => {
        void nextAnswer(this, this.answerMs, deadline).then((a) =>
          finish(timedOutError(this.pid, what, timeoutMs, a, this.answerMs)),
        );
      }, timeoutMs);
      const onMsg = (msg: HostMessage, t: number): void => {
        if (pred(msg)) finish(null, { msg, t });
      };
      const onExit = (): void => finish(new Error(`host ${this.pid} exited (${this.describeExit()})`));
      const finish = (err: Error | null, value?: { msg: HostMessage; t: number }): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.off('msg', onMsg);
        this.off('exit', onExit);
        if (err) reject(err);
        else resolve(value!);
      };
      this.on('msg', onMsg);
      this.on('exit', onExit);
      if (this.exited) onExit();
    });
  }

  /** Hand a standby host (mode 'standby', ready) the restore of the newest checkpoint, or (`boot`) a fresh session. */
  handOff(order: HandOff = HAND_OFF_LINE): void {
    if (!this.child.stdin) throw new Error(`host ${this.pid} is not a standby host (no stdin to hand off on)`);
    this.child.stdin.write(`${order}\n`);
  }

  /** The adapter fault this host died of (its error message), or null (none, or not an exec target). */
  get adapterFault(): string | null {
    return this.errorExitCode === EXIT.adapterFault ? this.errorMessage : null;
  }

  /**
   * SIGKILL the host's whole process group (host, agent, tools, QEMU) and its kill list (each entry only while it is
   * the process the host proved: same start time, not a zombie, not the runner...); returns the monotonic kill time.
   */
  /**
   * Ask the host to checkpoint now (CHECKPOINT_NOW_SIGNAL: its next checkpoint begins at once, its ckpt-begin marked
   * `asked`; one in flight finishes first); the monotonic time it was asked. A host that has exited is not signalled.
   */
  askCheckpoint(): number {
    const t = nowMs();
    if (this.exited) return t;
    try {
      process.kill(this.pid, CHECKPOINT_NOW_SIGNAL); // the host process only: its target's processes ignore it
    } catch {
      // already gone
    }
    return t;
  }

  kill(): number {
    const t = nowMs();
    try {
      process.kill(-this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    if (this.killList.length > 0) this.signalKillList('SIGKILL');
    return t;
  }

  /** Send `signal` to the kill list's processes that are still the ones the host proved; the PIDs signalled. */
  signalKillList(signal: NodeJS.Signals): number[] {
    return signalEntries(this.killList, neverKilled(process.pid, this.pid), signal).hit;
  }

  /**
   * SIGKILL the group and wait for the host to be gone, at most `timeoutMs` (a process that escaped the group could
   * keep its stdout open); true when it is gone. A SIGSTOPped host dies of SIGKILL too.
   */
  async reap(timeoutMs = 10_000): Promise<boolean> {
    this.kill();
    let timer: NodeJS.Timeout | undefined;
    const gone = await Promise.race([
      this.done.then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
    ]);
    clearTimeout(timer);
    return gone;
  }

  /** Destroy the session gracefully: SIGTERM the host (it destroys its target), SIGKILL the group after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    try {
      process.kill(this.pid, 'SIGTERM');
    } catch {
      // already gone
    }
    const timer = setTimeout(() => this.kill(), graceMs);
    await this.done;
    clearTimeout(timer);
    this.kill(); // anything the host left in its group
  }

  describeExit(): string {
    const e = this.exited;
    const how = e ? (e.signal ? `signal ${e.signal}` : `exit code ${String(e.exitCode)}`) : 'still running';
    return this.errorMessage ? `${how}: ${this.errorMessage}` : how;
  }
}

/** A type guard for `waitFor`: messages of one kind. */
export const isEv =
  <E extends HostMessage['ev']>(ev: E) =>
  (m: HostMessage): m is Extract<HostMessage, { ev: E }> =>
    m.ev === ev;

export function isFullHeartbeat(m: HostMessage): m is Extract<HostMessage, { ev: 'hb' }> {
  return m.ev === 'hb' && m.full;
}

/** Remove the private work dirs (scratch/host-<pid>-*) a host that is gone left behind; best effort. */
export function removeHostScratch(scratchDir: string, pid: number): void {
  try {
    for (const name of readdirSync(scratchDir))
      if (name.startsWith(`host-${pid}-`)) rmSync(path.join(scratchDir, name), { recursive: true, force: true });
  } catch {
    // no scratch folder (yet), or it is being removed with the run's
  }
}
