// What survives a resume: the classes of guest state the probe (vm-images/agent/probe.c) sets up and examines, the
// status words of an observation, and the probe's output lines read by hand (no zod: the process target's host reads
// them, and zod's import would lengthen every resume). The one home of this vocabulary (journal, gates, report use it).

/** The classes of guest state, in the order the probe reports them and the matrix lists them. */
export const STATE_CLASSES = [
  ['workspace-unsynced', 'a workspace file written, never fsynced, before the checkpoint'],
  ['tmp-file', 'a file in /tmp ($TMPDIR when set)'],
  ['shm-file', 'a file in /dev/shm ($SOAK_PROBE_SHM when set)'],
  ['grandchild-process', 'a detached grandchild (own session) still running, same PID and start time'],
  ['tcp-listener', 'a TCP listener on 127.0.0.1 that still accepts'],
  ['flock', 'a held flock (a new open of the file cannot take it)'],
  ['shared-mapping', 'a MAP_SHARED file mapping whose bytes the file still shows'],
  ['child-process', 'a child still running and answering with the same PID'],
  ['pipe', 'bytes pending in a pipe'],
  ['unix-socketpair', 'bytes pending in a UNIX socket pair'],
  ['timer', 'a periodic timerfd (CLOCK_MONOTONIC) that still fires'],
  ['env', 'an environment variable set at setup'],
  ['cwd', 'the working directory set at setup'],
  ['umask', 'the umask set at setup'],
  ['clock-monotonic', 'CLOCK_MONOTONIC not behind its reading at setup (value: seconds since)'],
  ['clock-wall', "the wall clock within 1 s of the host's right after the resume (value: seconds ahead)"],
  ['clone-entropy', 'two sessions restored from one checkpoint read different /dev/urandom, getrandom and UUIDv4s'],
  ['clock-wall-1s', "the wall clock within 1 s of the host's 1 s after the resume (a later reading: --clock-after)"],
  ['clock-wall-5s', "the wall clock within 1 s of the host's 5 s after the resume (a later reading: --clock-after)"],
  ['clock-wall-30s', "the wall clock within 1 s of the host's 30 s after the resume (a later reading: --clock-after)"],
  ['tcp-peer', "a TCP connection made at setup to the harness's echo outside the sandbox, still echoing"],
] as const;

export type StateClass = (typeof STATE_CLASSES)[number][0];
export const STATE_CLASS_IDS: readonly StateClass[] = STATE_CLASSES.map(([id]) => id);

/** The later wall-clock readings, in seconds after the resume: each its own `clock` line, not in the examination. */
export const CLOCK_AFTER_S = [1, 5, 30] as const;
const laterClock = (s: number): StateClass => `clock-wall-${s}s` as StateClass;
export const LATER_CLOCKS: readonly StateClass[] = CLOCK_AFTER_S.map(laterClock);

/**
 * Classes only `soak target check --matrix` measures: the later wall-clock readings (a soak would hold every resumed
 * session 30 s), clone-entropy (a clone restored beside the session) and tcp-peer (the echo the matrix runs). A soak
 * neither promises nor tallies them, and its report says so.
 */
export const MATRIX_ONLY: readonly StateClass[] = [...LATER_CLOCKS, 'clone-entropy', 'tcp-peer'];

/** survives; lost; changed (with the measured difference); not-applicable (the target cannot have it: the reason). */
export const OBSERVATION_STATUSES = ['survives', 'lost', 'changed', 'not-applicable'] as const;
export type ObservationStatus = (typeof OBSERVATION_STATUSES)[number];

/** One class as examined after one resume. `value`: the measured number (seconds, a PID, a port, a count). */
export interface Observation {
  class: StateClass;
  status: ObservationStatus;
  detail: string;
  value?: number;
}

/**
 * One examination after a resume: by the probe's own holder process (`holder`: the same process continued, as a
 * whole-sandbox restore keeps it) or by a new process reading its record (`restarted`: the session's processes were
 * started anew); `unprobed`: the target ran no probe (the reason is in each observation).
 */
export interface ProbeReport {
  mode: 'holder' | 'restarted' | 'unprobed';
  observations: Observation[];
}

/** A line the probe prints: ready after setup, an examination, or the error that stopped it. */
export type ProbeLine =
  | { event: 'ready'; holder: number; token: string }
  | ({ event: 'examined'; holder: number; token: string } & ProbeReport)
  /** A later wall-clock reading (`clock <host ms> <after>`): one observation, of class clock-wall-<after>s. */
  | { event: 'clock'; holder: number; token: string; after: number; observations: Observation[] }
  | { event: 'error'; message: string }
  /** Said by a target asked to probe that cannot run the probe (an adapter without the capability): the reason. */
  | { event: 'unprobed'; reason: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A probe output line (already JSON-parsed) checked field by field; a string says what is wrong with it. */
export function parseProbeLine(raw: unknown): ProbeLine | string {
  if (!isObj(raw) || raw.probe !== 1) return 'not a probe line (no "probe": 1)';
  if (raw.event === 'error')
    return typeof raw.message === 'string' ? { event: 'error', message: raw.message } : 'error without message';
  if (typeof raw.holder !== 'number' || typeof raw.token !== 'string')
    return `${String(raw.event)}: holder or token missing`;
  if (raw.event === 'ready') return { event: 'ready', holder: raw.holder, token: raw.token };
  if (raw.event === 'clock') return parseClockLine(raw, raw.holder, raw.token);
  if (raw.event !== 'examined') return `unknown event ${JSON.stringify(raw.event)}`;
  if (raw.mode !== 'holder' && raw.mode !== 'restarted') return `examined: mode ${JSON.stringify(raw.mode)}`;
  if (!Array.isArray(raw.observations)) return 'examined: observations is not a list';
  const observations: Observation[] = [];
  for (const [i, o] of raw.observations.entries()) {
    const ok =
      isObj(o) &&
      STATE_CLASS_IDS.includes(o.class as StateClass) &&
      OBSERVATION_STATUSES.includes(o.status as ObservationStatus) &&
      typeof o.detail === 'string' &&
      (o.value === undefined || typeof o.value === 'number');
    if (!ok) return `examined: observations[${i}] is not a known class with a status and a detail`;
    observations.push(o as unknown as Observation);
  }
  const missing = STATE_CLASS_IDS.filter((c) => !LATER_CLOCKS.includes(c) && !observations.some((o) => o.class === c));
  if (missing.length > 0) return `examined: no observation of ${missing.join(', ')}`;
  return { event: 'examined', holder: raw.holder, token: raw.token, mode: raw.mode, observations };
}

/** A `clock` line: `after` one of CLOCK_AFTER_S and exactly one observation, of its class. */
function parseClockLine(raw: Record<string, unknown>, holder: number, token: string): ProbeLine | string {
  const o: unknown = Array.isArray(raw.observations) ? raw.observations[0] : undefined;
  const after = raw.after;
  const ok =
    typeof after === 'number' &&
    (CLOCK_AFTER_S as readonly number[]).includes(after) &&
    (raw.observations as unknown[]).length === 1 &&
    isObj(o) &&
    o.class === laterClock(after) &&
    OBSERVATION_STATUSES.includes(o.status as ObservationStatus) &&
    typeof o.detail === 'string' &&
    (o.value === undefined || typeof o.value === 'number');
  if (!ok) return `clock: not one observation of clock-wall-<after>s (after: ${JSON.stringify(after)})`;
  return { event: 'clock', holder, token, after, observations: [o as unknown as Observation] };
}

/** The report with every later clock reading it lacks added as not-applicable, with the reason it was not read. */
export function withLaterClocks(report: ProbeReport, reason: string): ProbeReport {
  const lacking = LATER_CLOCKS.filter((c) => !report.observations.some((o) => o.class === c));
  const added = lacking.map((c): Observation => ({ class: c, status: 'not-applicable', detail: reason }));
  return { ...report, observations: [...report.observations, ...added] };
}

/** Every class not-applicable with one reason: a target that ran no probe. */
export function unprobed(reason: string): ProbeReport {
  return {
    mode: 'unprobed',
    observations: STATE_CLASS_IDS.map((c) => ({ class: c, status: 'not-applicable', detail: reason })),
  };
}
