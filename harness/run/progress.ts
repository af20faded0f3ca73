// Progress on long work: a one-line bar with cycles, failures, downtime p95 and ETA on a terminal;
// a plain line every 10% (at most every 15 s) when not a TTY; nothing when quiet.
import { nowMs } from '../core/clock.js';
import type { CycleEvent } from '../journal/events.js';
import { quantileSorted } from '../stats/quantile.js';

export interface Progress {
  start(total: number): void;
  cycle(event: CycleEvent): void;
  finish(): void;
}

export const quietProgress: Progress = { start() {}, cycle() {}, finish() {} };

function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

/** Progress on `stream` (stderr); a bar when it is a TTY, periodic lines otherwise. */
export function streamProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  let total = 0;
  let done = 0;
  let failed = 0;
  let unjudged = 0;
  let started = 0;
  let lastLine = 0;
  let lastPct = -1;
  const downtimes: number[] = [];
  const tty = stream.isTTY;

  const line = (): string => {
    const sorted = Float64Array.from(downtimes).sort();
    const p95 = sorted.length > 0 ? `${quantileSorted(sorted, 0.95).toFixed(1)} ms` : 'n/a';
    const elapsed = nowMs() - started;
    const eta = done > 0 ? fmtDuration((elapsed / done) * (total - done)) : '?';
    const width = 24;
    const filled = total > 0 ? Math.round((done / total) * width) : 0;
    const bar = tty ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
    return `${bar}${done}/${total} cycles, ${failed} failed${unjudged > 0 ? `, ${unjudged} indeterminate` : ''}, downtime p95 ${p95}, elapsed ${fmtDuration(elapsed)}, ETA ${eta}`;
  };

  return {
    start(n) {
      total = n;
      started = nowMs();
    },
    cycle(ev) {
      done++;
      if (ev.outcome === 'fail') failed++;
      else if (ev.outcome === 'indeterminate') unjudged++;
      if (ev.outcome === 'ok' && ev.downtimeMs !== null) downtimes.push(ev.downtimeMs);
      if (tty) {
        stream.write(`\r${line()}\x1b[K`);
        return;
      }
      const pct = Math.floor((done / Math.max(1, total)) * 10);
      if (pct !== lastPct && nowMs() - lastLine > 15_000) {
        lastPct = pct;
        lastLine = nowMs();
        stream.write(`progress: ${line()}\n`);
      }
    },
    finish() {
      if (tty && done > 0) stream.write('\n');
    },
  };
}
