// Where a product restore's time goes: the session hosts' `restore-timeline` lines from a run's hosts.log, as the
// median time of each step since the previous one (a cold host from its process start, a standby from its hand-off).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { RESTORE_TIMELINE } from '../harness/session/protocol.js';
import { median } from './measure.js';

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

/** Every restore timeline in the hosts.log files under `runsDir`. */
export function readTimelines(runsDir: string): Array<Record<string, number>> {
  const out: Array<Record<string, number>> = [];
  const tag = `host: ${RESTORE_TIMELINE} `;
  const walk = (dir: string): void => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name === 'hosts.log')
        for (const line of readFileSync(p, 'utf8').split('\n'))
          if (line.startsWith(tag)) out.push(JSON.parse(line.slice(tag.length)) as Record<string, number>);
    }
  };
  walk(runsDir);
  return out;
}

/** One line: each step's median duration over the run's restores, in the order the steps happen. */
export function timelineSummary(runsDir: string): string {
  const all = readTimelines(runsDir).map(stepDurations);
  if (all.length === 0) return 'no restore timelines in the host logs';
  const steps = Object.keys(all[0]!);
  const parts = steps.map((k) => `${k} ${median(all.map((d) => d[k] ?? NaN).filter(Number.isFinite)).toFixed(0)}`);
  const sources = Object.entries(restoreSourceCounts(runsDir)).map(([k, n]) => `${k} ${n}`);
  const from = sources.length > 0 ? `; restore source: ${sources.join(', ')}` : '';
  return `restore steps (median ms since the step before, n ${all.length}): ${parts.join(', ')}${from}`;
}
