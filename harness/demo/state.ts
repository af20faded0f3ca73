// What the demo page shows, as data: the session's state, step, digests, newest checkpoint, the PIDs to kill, the
// last interruption's outcome and a timeline. The session driver feeds it; the server pushes its snapshot.
import { nowMs } from '../core/clock.js';
import type { WorkloadModel } from '../check/workload.js';
import type { Outcome } from '../journal/events.js';
import type { GroupMember } from './group.js';
import { resumeRateText } from './resume-rate.js';

/** The session's state as the page names it. */
export type SessionState =
  'booting' | 'running' | 'checkpointing' | 'dead' | 'restoring' | 'verified' | 'failed' | 'stopped';

/** Who interrupted the session: a person typing kill, the page's button, or the page's whole-host button (grid.ts). */
export type KilledBy = 'person' | 'button' | 'host';

/** The outcome of one interruption, as the page shows it. */
export interface InterruptionView {
  cycle: number;
  by: KilledBy;
  /** The checker's verdict (indeterminate: the machine failed, not the session). */
  verdict: Outcome;
  /** Kill (for a person: the moment the demo noticed the death) -> first verified heartbeat, ms. */
  downtimeMs: number | null;
  /** A button's kill only: the kill sent -> its death noticed, ms. */
  noticeMs: number | null;
  restoredSeq: number | null;
  restoredStep: number | null;
  killStep: number;
  lostSteps: number | null;
  noncePreserved: boolean;
  violations: string[];
}

/** One line of the timeline: ms since the demo started, and what happened. */
export interface TimelineEntry {
  atMs: number;
  text: string;
}

/** The three digests of one step. */
export interface Digests {
  step: number;
  fs: string;
  mem: string;
  tool: string;
}

/** Per key discipline: requests the world has been sent (live), and what the accountings so far found. */
export type EffectsView = Record<
  'step-key' | 'random-key' | 'no-key',
  { emitted: number; duplicates: number; lost: number }
>;

/** Everything the page shows, pushed several times a second. */
export interface DemoSnapshot {
  state: SessionState;
  target: string;
  runDir: string;
  step: number;
  nonce: string | null;
  /** The digests the workload model expects at `step` (what the agent's three parts must hash to). */
  expected: Digests | null;
  /** The digests the agent itself reported in its last full heartbeat (after boot or a restore), as verified. */
  reported: Digests | null;
  workspace: string[];
  checkpoint: { seq: number; step: number; ageMs: number } | null;
  /** The host's PID (= its process group), the kill commands, and the group's processes (QEMU's among them). */
  pids: { host: number; group: number; commands: string[]; members: GroupMember[] } | null;
  last: InterruptionView | null;
  counts: { interruptions: number; resumed: number; failed: number };
  /** The resume rate's anytime-valid interval and what it supports against 95% (resume-rate.ts). */
  resumeRate: string;
  /** Wall-clock time (epoch ms, sub-ms) the last death was noticed, for measuring notice latency from outside. */
  noticedAtEpochMs: number | null;
  /** The run's external effects (null: its scenario emits none). */
  effects: EffectsView | null;
  timeline: TimelineEntry[];
}

const TIMELINE_MAX = 200;
/** How long "verified" stays on after a resume before the state reads "running" again, ms. */
const VERIFIED_HOLD_MS = 2000;

/** The demo's live state: mutated by the session driver, read by the server as snapshots. */
export class DemoState {
  state: SessionState = 'booting';
  step = -1;
  nonce: string | null = null;
  reported: Digests | null = null;
  checkpoint: { seq: number; step: number; at: number } | null = null;
  inFlight = false;
  pid: number | null = null;
  last: InterruptionView | null = null;
  counts = { interruptions: 0, resumed: 0, failed: 0 };
  noticedAtEpochMs: number | null = null;
  /** Reads the run's effects now (null: none). */
  effects: (() => EffectsView) | null = null;
  private verifiedAt = 0;
  private readonly timeline: TimelineEntry[] = [];
  private readonly started = nowMs();

  constructor(
    readonly target: string,
    readonly runDir: string,
    private readonly model: WorkloadModel,
    private readonly workspace: () => string[],
    private readonly group: (pgid: number) => GroupMember[] = () => [],
  ) {}

  /** Add a line to the timeline (newest first on the page). */
  note(text: string): void {
    this.timeline.push({ atMs: Math.round(nowMs() - this.started), text });
    if (this.timeline.length > TIMELINE_MAX) this.timeline.shift();
  }

  /** Move to `state`, noting it on the timeline. */
  set(state: SessionState, why?: string): void {
    if (state === 'verified') this.verifiedAt = nowMs();
    if (this.state !== state || why) this.note(why ?? state);
    this.state = state;
  }

  /** The state shown now: a resumed session reads "verified" for a moment, then running/checkpointing again. */
  shownState(): SessionState {
    const live = this.state === 'running' || this.state === 'verified';
    if (!live) return this.state;
    if (this.state === 'verified' && nowMs() - this.verifiedAt < VERIFIED_HOLD_MS) return 'verified';
    return this.inFlight ? 'checkpointing' : 'running';
  }

  private pidsOf(pid: number): NonNullable<DemoSnapshot['pids']> {
    const members = this.group(pid);
    const qemu = members.filter((m) => m.name.startsWith('qemu')).map((m) => `kill -9 ${m.pid}`);
    return { host: pid, group: pid, commands: [`kill -9 -- -${pid}`, `kill -9 ${pid}`, ...qemu], members };
  }

  /** The page's data now. */
  snapshot(): DemoSnapshot {
    const pid = this.pid;
    const cp = this.checkpoint;
    return {
      state: this.shownState(),
      target: this.target,
      runDir: this.runDir,
      step: this.step,
      nonce: this.nonce,
      expected: this.step >= 0 ? { step: this.step, ...this.model.expected(this.step) } : null,
      reported: this.reported,
      workspace: this.workspace(),
      checkpoint: cp ? { seq: cp.seq, step: cp.step, ageMs: Math.round(nowMs() - cp.at) } : null,
      pids: pid === null ? null : this.pidsOf(pid),
      last: this.last,
      counts: { ...this.counts },
      resumeRate: resumeRateText(this.counts),
      noticedAtEpochMs: this.noticedAtEpochMs,
      effects: this.effects?.() ?? null,
      timeline: this.timeline.slice().reverse(),
    };
  }
}
