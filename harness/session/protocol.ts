// Messages between the runner and a session host: the host's config (argv, validated) and the NDJSON lines it writes
// to stdout.
import type { Heartbeat, RanBeforeReport } from '../check/heartbeat.js';
import type { ProbeLine } from '../check/survival.js';
import type { CheckpointFacts } from '../journal/events.js';
import type { KillEntry } from '../core/kill-guard.js';
import { TIMER_MAX_MS } from '../core/clock.js';
import { issueLine } from '../core/config-issues.js';
import { ConfigError } from '../core/errors.js';
import { visible } from '../core/visible.js';

/** How one field of the host config is checked, and what it must be (for the message). */
interface Field<T> {
  ok(value: unknown): value is T;
  want: string;
}
const text: Field<string> = {
  ok: (v): v is string => typeof v === 'string' && v !== '',
  want: 'a non-empty string',
};
const options: Field<Record<string, unknown>> = {
  ok: (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v),
  want: 'an object',
};
const oneOf = <T extends string>(...values: T[]): Field<T> => ({
  ok: (v): v is T => values.includes(v as T),
  want: `one of ${values.map((x) => JSON.stringify(x)).join(', ')}`,
});
const ms = (positive: boolean): Field<number> => ({
  ok: (v): v is number => typeof v === 'number' && (positive ? v > 0 : v >= 0) && v <= TIMER_MAX_MS,
  want: `a number of ms ${positive ? '> 0' : '>= 0'} and <= ${TIMER_MAX_MS}`,
});

/**
 * A session host's config (its one argument, JSON), field by field: the one home of its shape (HostConfig is read off
 * this table) and of its check where the host reads it (parseHostConfig in host-main.ts). Checked by hand, not with
 * zod: zod's import would lengthen every process-target host start, which a resume's downtime counts. The runner
 * builds it from a validated scenario (run/host-journal.ts).
 */
const HOST_CONFIG = {
  /**
   * Boot a new session, restore the newest checkpoint, or only report the target's facts (no boot) and exit;
   * standby: load everything, open the store, prepare the target, then wait for the runner's hand-off to restore;
   * pool: as standby, but nothing of the session is read before the hand-off (no pre-read, no warm copy: the store's
   * read path is warmed on bytes of its own); clone: restore the newest checkpoint and never checkpoint (a second
   * session from one checkpoint, run/effects-clone.ts).
   */
  mode: oneOf('boot', 'restore', 'describe', 'standby', 'pool', 'clone'),
  target: text,
  targetOptions: options,
  storeDir: text,
  sessionDir: text,
  /** Parent of this host's private work dir. */
  scratchDir: text,
  stepMs: ms(true),
  checkpointEveryMs: ms(true),
  skewMs: ms(false),
  injectRestoreDelayMs: ms(false),
};

/** What the runner tells a session host (HOST_CONFIG). */
export type HostConfig = {
  [K in keyof typeof HOST_CONFIG]: (typeof HOST_CONFIG)[K] extends Field<infer T> ? T : never;
};

/** A value in a message: its JSON, cut at 80 characters, with no control character shown raw. */
function shown(value: unknown): string {
  const json = JSON.stringify(value); // a value of parsed JSON: never undefined
  return visible(json.length > 80 ? `${json.slice(0, 80)}…` : json);
}

/**
 * The host config in `arg` (the host's argv[2]), or ConfigError (exit 3) in one line naming every bad field:
 * "session host config: stepMs: expected a number of ms > 0 and <= 2147483647, got "5"".
 */
export function parseHostConfig(arg: string | undefined): HostConfig {
  const what = 'session host config';
  let raw: unknown;
  try {
    raw = JSON.parse(arg ?? '');
  } catch (err) {
    throw new ConfigError(
      issueLine(what, { path: [], message: `not JSON (${(err as Error).message}); expected one JSON argument` }),
    );
  }
  if (!options.ok(raw))
    throw new ConfigError(issueLine(what, { path: [], message: `expected an object, got ${shown(raw)}` }));
  const fields = Object.entries(HOST_CONFIG) as [keyof HostConfig, Field<unknown>][];
  const problems = fields.flatMap(([key, f]) =>
    f.ok(raw[key])
      ? []
      : [`${key}: expected ${f.want}, got ${Object.hasOwn(raw, key) ? shown(raw[key]) : 'nothing (missing)'}`],
  );
  for (const key of Object.keys(raw))
    if (!Object.hasOwn(HOST_CONFIG, key))
      problems.push(`${visible(key)}: unknown field (known: ${Object.keys(HOST_CONFIG).join(', ')})`);
  if (problems.length > 0) throw new ConfigError(`${what}: ${problems.join('; ')}`);
  return raw as HostConfig;
}

export type HostMessage =
  /** `ran`: only on a restore host's first full heartbeat, where the target marks when the state began to run. */
  | ({ ev: 'hb'; ran?: RanBeforeReport } & Heartbeat)
  | { ev: 'booted'; bootMs: number }
  /** A standby host is ready for the hand-off (modules loaded, store open, target prepared) after `readyMs`. */
  | { ev: 'standby-ready'; readyMs: number }
  | { ev: 'restore-begin'; seq: number; step: number }
  | { ev: 'restore-end'; seq: number; step: number; restoreMs: number; source?: string }
  /** `asked`: this checkpoint began because the runner asked for one (CHECKPOINT_NOW_SIGNAL), not at the cadence. */
  | { ev: 'ckpt-begin'; seq: number; asked?: true }
  | ({ ev: 'ckpt-commit' } & CheckpointFacts)
  /** Target facts; `live` once the target has booted or restored (facts only a running target knows). */
  | { ev: 'target'; info: Record<string, string | number | boolean>; live: boolean }
  /**
   * Processes outside the host's group that a SIGKILL of the session must hit too (replaces the previous list), each
   * proven the target's own by the host and identified by its start time, so the runner can check it again.
   */
  | { ev: 'kill-list'; procs: KillEntry[] }
  /** A line of the target's guest-state probe (check/survival.ts), relayed as the target reported it. */
  | { ev: 'probe'; line: ProbeLine }
  /** The host failed: its message, the errno code when there is one (ENOSPC...), the exit code it exits with. */
  | { ev: 'error'; message: string; code?: string; exitCode?: number }
  /**
   * The host's own sign of life, every HOST_ALIVE_MS from its own timer, whatever its target does: sent `at` (the
   * machine's monotonic clock, core/clock.ts monotonicMs), `gapMs` after the previous one (far above HOST_ALIVE_MS:
   * the host itself was stopped or starved in between).
   */
  | { ev: 'alive'; at: number; gapMs: number };

/**
 * The host command "checkpoint now" (a checkpoint storm: nemesis/checkpoint-storm.ts): the signal the runner sends the
 * host process. A signal, not a line on stdin: it carries nothing to misread, reaches every host however it was started
 * (a standby's stdin is its hand-off's), and the storm's loop sends it to every session in the same tick.
 */
export const CHECKPOINT_NOW_SIGNAL = 'SIGUSR2';

/**
 * TEST-ONLY: SOAK_TEST_STORM_TORN=1: a host takes every asked checkpoint torn across its parts (skewMs 200: the
 * workspace at t, memory and tool at t + 200 ms: torn unless the agent was starved that long), commits it whole and
 * takes no checkpoint after it (so the restore after the storm's kill takes it): the negative control that a torn storm
 * checkpoint restored is caught by the checker (test/e2e/checkpoint-storm.test.ts).
 */
export const STORM_TORN = 'SOAK_TEST_STORM_TORN';

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
