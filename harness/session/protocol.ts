// Messages between the runner and a session host: the host's config (argv) and the NDJSON lines it writes to stdout.
import type { Heartbeat } from '../check/heartbeat.js';
import type { CheckpointFacts } from '../journal/events.js';
import type { KillEntry } from '../core/kill-guard.js';

export interface HostConfig {
  /**
   * Boot a new session, restore the newest checkpoint, or only report the target's facts (no boot) and exit;
   * standby: load everything, open the store, prepare the target, then wait for the runner's hand-off to restore.
   */
  mode: 'boot' | 'restore' | 'describe' | 'standby';
  target: string;
  targetOptions: Record<string, unknown>;
  storeDir: string;
  sessionDir: string;
  /** Parent of this host's private work dir. */
  scratchDir: string;
  stepMs: number;
  checkpointEveryMs: number;
  skewMs: number;
  injectRestoreDelayMs: number;
}

export type HostMessage =
  | ({ ev: 'hb' } & Heartbeat)
  | { ev: 'booted'; bootMs: number }
  /** A standby host is ready for the hand-off (modules loaded, store open, target prepared) after `readyMs`. */
  | { ev: 'standby-ready'; readyMs: number }
  | { ev: 'restore-begin'; seq: number; step: number }
  | { ev: 'restore-end'; seq: number; step: number; restoreMs: number; source?: string }
  | { ev: 'ckpt-begin'; seq: number }
  | ({ ev: 'ckpt-commit' } & CheckpointFacts)
  /** Target facts; `live` once the target has booted or restored (facts only a running target knows). */
  | { ev: 'target'; info: Record<string, string | number | boolean>; live: boolean }
  /**
   * Processes outside the host's group that a SIGKILL of the session must hit too (replaces the previous list), each
   * proven the target's own by the host and identified by its start time, so the runner can check it again.
   */
  | { ev: 'kill-list'; procs: KillEntry[] }
  /** The host failed: its message, the errno code when there is one (ENOSPC...), the exit code it exits with. */
  | { ev: 'error'; message: string; code?: string; exitCode?: number }
  /**
   * The host's own sign of life, every HOST_ALIVE_MS from its own timer, whatever its target does: sent `at` (the
   * machine's monotonic clock, core/clock.ts monotonicMs), `gapMs` after the previous one (far above HOST_ALIVE_MS:
   * the host itself was stopped or starved in between).
   */
  | { ev: 'alive'; at: number; gapMs: number };

/** How often a session host sends `alive` (ms). */
export const HOST_ALIVE_MS = 200;
/**
 * An `alive` whose gap since the previous one is above this (ms) shows that the host itself was not running in between
 * (SIGSTOPped, or starved): what it says then proves nothing about the session.
 */
export const HOST_ALIVE_GAP_MS = 2000;

/** The host-log line (stderr) a restored host writes once: `host: restore-timeline {phase: ms since the host started}`. */
export const RESTORE_TIMELINE = 'restore-timeline';
/** The restore-timeline key of the host's performance.timeOrigin (epoch ms), not a mark. */
export const TIME_ORIGIN = 'timeOrigin';
