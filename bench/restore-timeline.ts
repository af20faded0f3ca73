// Where a product restore's time goes: the session hosts' `restore-timeline` lines from a run's hosts.log, as the
// median time of each step since the previous one (a cold host from its process start, a standby from its hand-off,
// and before it the kill -> hand-off the runner's `kill-path` lines in run.log time).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { KILL_PATH } from '../harness/nemesis/kill-path.js';
import { RESTORE_TIMELINE, TIME_ORIGIN } from '../harness/session/protocol.js';
import { median } from './measure.js';

/** One host's restore timeline: its marks (performance.now() ms) and its time origin (epoch ms) when it gave one. */
export interface Timeline {
  marks: Record<string, number>;
  timeOrigin?: number;
}

/** One resume's kill path as the runner logged it: the kill's epoch ms and each step's ms since the one before. */
export interface KillPathLine {
  killEpochMs: number;
  steps: Record<string, number>;
}

/** Each step's own duration (ms since the step before it) for one restore. */
export function stepDurations(marks: Record<string, number>): Record<string, number> {
  const entries = Object.entries(marks).sort(([, a], [, b]) => a - b);
  const from = entries.findIndex(([k]) => k === 'handOff');
  const kept = from >= 0 ? entries.slice(from) : entries;
  const out: Record<string, number> = {};
  let prev = from >= 0 ? kept[0]![1] : 0;
  for (const [k, t] of from >= 0 ? kept.slice(1) : kept) {
    out[k] = t - prev;
    prev = t;
  }
  return out;
}

/** Restores by where they read the checkpoint (`source` of the journals' restore events under `runsDir`). */
export function restoreSourceCounts(runsDir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'journal.ndjson')
        for (const line of readFileSync(p, 'utf8').split('\n')) {
          if (!line.includes('"type":"restore"')) continue;
          const source = (JSON.parse(line) as { source?: string }).source;
          if (source !== undefined) out[source] = (out[source] ?? 0) + 1;
        }
    }
  };
  walk(runsDir);
  return out;
}

/** Every line of the files named `name` under `runsDir`, file by file. */
function linesOf(runsDir: string, name: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === name) out.push(...readFileSync(p, 'utf8').split('\n'));
    }
  };
  walk(runsDir);
  return out;
}

/** Every restore timeline in the hosts.log files under `runsDir`. */
export function readTimelines(runsDir: string): Timeline[] {
  const tag = `host: ${RESTORE_TIMELINE} `;
  return linesOf(runsDir, 'hosts.log')
    .filter((line) => line.startsWith(tag))
    .map((line) => {
      const { [TIME_ORIGIN]: timeOrigin, ...marks } = JSON.parse(line.slice(tag.length)) as Record<string, number>;
      return timeOrigin === undefined ? { marks } : { marks, timeOrigin };
    });
}

/** Every `kill-path` line in the run.log files under `runsDir`. */
export function readKillPaths(runsDir: string): KillPathLine[] {
  const out: KillPathLine[] = [];
  for (const line of linesOf(runsDir, 'run.log')) {
    if (!line.includes(`"msg":"${KILL_PATH}"`)) continue;
    const {
      killEpochMs,
      level: _l,
      time: _t,
      msg: _m,
      cycle: _c,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const steps = Object.fromEntries(
      Object.entries(rest).filter((e): e is [string, number] => typeof e[1] === 'number'),
    );
    if (typeof killEpochMs === 'number') out.push({ killEpochMs, steps });
  }
  return out;
}

/**
 * A standby's kill -> hand-off: from the last kill before its hand-off (epoch ms) to the moment it read the hand-off
 * line; undefined for a cold host, a timeline without a time origin, or no kill before it.
 */
export function killToHandOff(t: Timeline, kills: readonly KillPathLine[]): number | undefined {
  const handOff = t.marks.handOff;
  if (handOff === undefined || t.timeOrigin === undefined) return undefined;
  const at = t.timeOrigin + handOff;
  const before = kills.filter((k) => k.killEpochMs <= at).map((k) => k.killEpochMs);
  return before.length === 0 ? undefined : at - Math.max(...before);
}

/** Each step's median over `rows`, in the first row's order: `step ms, ...`. */
function medians(rows: Array<Record<string, number>>): string {
  const steps = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return steps.map((k) => `${k} ${median(rows.map((d) => d[k] ?? NaN).filter(Number.isFinite)).toFixed(0)}`).join(', ');
}

/** Each restore's step durations, a standby's beginning with killToHandOff. */
function restoreSteps(runsDir: string, kills: readonly KillPathLine[]): Array<Record<string, number>> {
  return readTimelines(runsDir).map((t) => {
    const k = killToHandOff(t, kills);
    return { ...(k === undefined ? {} : { killToHandOff: k }), ...stepDurations(t.marks) };
  });
}

/** Each step's median duration (ms since the step before) over the run's restores, in the order the steps happen. */
export function stepMedians(runsDir: string): Record<string, number> {
  const all = restoreSteps(runsDir, readKillPaths(runsDir));
  const steps = [...new Set(all.flatMap((r) => Object.keys(r)))];
  return Object.fromEntries(steps.map((k) => [k, median(all.map((d) => d[k] ?? NaN).filter(Number.isFinite))]));
}

/**
 * One line: each step's median duration over the run's restores, in the order the steps happen (a standby's begins
 * with killToHandOff), then the runner's side of kill -> hand-off.
 */
export function timelineSummary(runsDir: string): string {
  const kills = readKillPaths(runsDir);
  const all = restoreSteps(runsDir, kills);
  if (all.length === 0) return 'no restore timelines in the host logs';
  const sources = Object.entries(restoreSourceCounts(runsDir)).map(([k, n]) => `${k} ${n}`);
  const from = sources.length > 0 ? `; restore source: ${sources.join(', ')}` : '';
  const runner =
    kills.length > 0 ? `; runner kill path (median ms, n ${kills.length}): ${medians(kills.map((k) => k.steps))}` : '';
  return `restore steps (median ms since the step before, n ${all.length}): ${medians(all)}${from}${runner}`;
}
