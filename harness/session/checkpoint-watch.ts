// The bound on a checkpoint (scenario checkpoint.timeoutMs), watched on every checkpoint a run's host begins: one that
// paused the session longer, or did not commit within it while its host answered, is the session's failed checkpoint
// (violation checkpoint-stuck); when the host stopped answering too, the host is hung (indeterminate, host-hung). A
// checkpoint during which the host itself was stopped (a freeze) gets a whole bound from the host's return, and its
// pause, which counts the stop, is not held against the session.
import { monotonicMs } from '../core/clock.js';
import { SessionHungError } from '../core/errors.js';
import type { IndeterminateCause, Violation } from '../journal/events.js';
import type { HostHandle } from './host-handle.js';
import { nextAnswer, timedOutError } from './liveness.js';
import { HOST_ALIVE_GAP_MS, type HostMessage } from './protocol.js';
import { causeOf, sessionFailure } from './infra-cause.js';

/** A checkpoint past its bound: the session's failure, or the host's (hung). */
export type StuckCheckpoint = { kind: 'session'; violation: Violation } | { kind: 'host'; cause: IndeterminateCause };

/** The watch of each host that has one (journaledHosts gives the run's hosts one). */
const watches = new WeakMap<HostHandle, CheckpointWatch>();

/** Watch every checkpoint `host` begins against `boundMs`. */
export function watchCheckpoints(host: HostHandle, boundMs: number): CheckpointWatch {
  const w = new CheckpointWatch(host, boundMs);
  watches.set(host, w);
  return w;
}

/** What a checkpoint of `host` past its bound was, once one was (never, for a host without a watch). */
export function stuckCheckpoint(host: HostHandle): Promise<StuckCheckpoint> {
  return watches.get(host)?.stuck ?? new Promise(() => {});
}

/**
 * The harness is about to stop `host`'s whole group (a freeze): no checkpoint bound runs until the returned function is
 * called (after SIGCONT), and the checkpoint in flight is not held to its pause, which counts the freeze.
 */
export function holdCheckpointWatch(host: HostHandle): () => void {
  const w = watches.get(host);
  if (w === undefined) return () => {};
  w.hold();
  return () => w.release();
}

/** The checkpoints of one host against the bound; `stuck` resolves with the first one past it. */
export class CheckpointWatch {
  /** The first checkpoint past its bound (the host is then killed: nothing after it is judged). */
  readonly stuck: Promise<StuckCheckpoint>;
  private report: (s: StuckCheckpoint) => void = () => {};
  private inFlight: { seq: number; hostStopped: boolean } | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** Which arming of the bound is current (a bound's expiry from an earlier one is ignored). */
  private armed = 0;
  /** The harness holds the host stopped (a freeze). */
  private held = false;

  constructor(
    private readonly host: HostHandle,
    readonly boundMs: number,
  ) {
    this.stuck = new Promise((resolve) => (this.report = resolve));
    host.on('msg', this.onMsg);
    host.once('exit', () => {
      clearTimeout(this.timer);
      host.off('msg', this.onMsg);
    });
  }

  private readonly onMsg = (msg: HostMessage): void => {
    if (msg.ev === 'ckpt-begin') {
      this.inFlight = { seq: msg.seq, hostStopped: this.held };
      this.arm();
    } else if (msg.ev === 'ckpt-commit') {
      const c = this.inFlight;
      clearTimeout(this.timer);
      this.inFlight = null;
      if (c !== null && !c.hostStopped && msg.pauseMs > this.boundMs) {
        const message = `checkpoint ${msg.seq} of host ${this.host.pid} paused the session ${Math.round(msg.pauseMs)} ms, over its bound of ${this.boundMs} ms (scenario checkpoint.timeoutMs)`;
        this.report({ kind: 'session', violation: { code: 'checkpoint-stuck', message } });
      }
    } else if (msg.ev === 'alive' && msg.gapMs > HOST_ALIVE_GAP_MS && this.inFlight !== null) {
      // the host itself was stopped or starved until now: its session gets a whole bound from here
      this.inFlight.hostStopped = true;
      this.arm();
    }
  };

  /** Start the bound of the checkpoint in flight afresh (none while the harness holds the host stopped). */
  private arm(): void {
    clearTimeout(this.timer);
    const armed = ++this.armed;
    const deadline = monotonicMs() + this.boundMs;
    if (!this.held) this.timer = setTimeout(() => void this.expired(armed, deadline), this.boundMs);
  }

  /** See holdCheckpointWatch. */
  hold(): void {
    this.held = true;
    if (this.inFlight !== null) this.inFlight.hostStopped = true;
    this.arm();
  }

  release(): void {
    this.held = false;
    if (this.inFlight !== null) this.arm();
  }

  /** The bound armed as `armed` ran out at `deadline`: once the host's first tick after it says who is stuck, report. */
  private async expired(armed: number, deadline: number): Promise<void> {
    const seq = this.inFlight?.seq;
    const answer = await nextAnswer(this.host, this.host.answerMs, deadline);
    // committed or armed anew meanwhile (back from a stop, a freeze), or gone
    if (armed !== this.armed || this.inFlight?.seq !== seq || this.host.exited || answer.kind === 'stopped') return;
    const what = `commit of checkpoint ${seq}`;
    const err = timedOutError(this.host.pid, what, this.boundMs, answer, this.host.answerMs, 'checkpoint-stuck');
    const cause = err instanceof SessionHungError ? null : causeOf(err, this.host);
    this.report(cause ? { kind: 'host', cause } : { kind: 'session', violation: sessionFailure(err) });
  }
}
