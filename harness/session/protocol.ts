// Messages between the runner and a session host: the host's config (argv, validated) and the NDJSON lines it writes
// to stdout.
import type { Heartbeat } from '../check/heartbeat.js';
import type { CheckpointFacts } from '../journal/events.js';
import type { KillEntry } from '../core/kill-guard.js';
import { z } from 'zod';
import { TIMER_MAX_MS } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';

/**
 * A session host's config (its one argument, JSON), validated where the host reads it (host-main.ts): the one home of
 * its shape, HostConfig is inferred from it. The runner builds it from a validated scenario (run/host-journal.ts).
 */
export const hostConfigSchema = z
  .object({
    /**
     * Boot a new session, restore the newest checkpoint, or only report the target's facts (no boot) and exit;
     * standby: load everything, open the store, prepare the target, then wait for the runner's hand-off to restore.
     */
    mode: z.enum(['boot', 'restore', 'describe', 'standby']),
    target: z.string().min(1),
    targetOptions: z.record(z.string(), z.unknown()),
    storeDir: z.string().min(1),
    sessionDir: z.string().min(1),
    /** Parent of this host's private work dir. */
    scratchDir: z.string().min(1),
    stepMs: z.number().positive().max(TIMER_MAX_MS),
    checkpointEveryMs: z.number().positive().max(TIMER_MAX_MS),
    skewMs: z.number().nonnegative().max(TIMER_MAX_MS),
    injectRestoreDelayMs: z.number().nonnegative().max(TIMER_MAX_MS),
  })
  .strict();

/** What the runner tells a session host (see hostConfigSchema). */
export type HostConfig = z.infer<typeof hostConfigSchema>;

/**
 * The host config in `arg` (the host's argv[2]), or ConfigError (exit 3) in one line naming the field:
 * "session host config: stepMs: Invalid input: expected number, received string".
 */
export function parseHostConfig(arg: string | undefined): HostConfig {
  const what = 'session host config';
  let raw: unknown;
  try {
    raw = JSON.parse(arg ?? '');
  } catch (err) {
    throw new ConfigError(`${what}: (top level): not JSON (${(err as Error).message}); expected one JSON argument`);
  }
  const result = hostConfigSchema.safeParse(raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => {
    const keys = i.code === 'unrecognized_keys' ? i.keys.map((k) => [...i.path, k].join('.')) : [];
    return `${keys.join(', ') || i.path.join('.') || '(top level)'}: ${i.message}`;
  });
  throw new ConfigError(`${what}: ${problems.join('; ')}`);
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
