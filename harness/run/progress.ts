// Progress on long work, for each phase of a run (the boot samples, then the cycles): a one-line bar with counts, a
// p95 and an ETA on a terminal; a plain line at every 10% step when not a TTY (CI logs: at most 10 lines a phase);
// nothing when quiet.
import { nowMs } from '../core/clock.js';
import type { CycleEvent } from '../journal/events.js';
import { quantileSorted } from '../stats/quantile.js';

export interface Progress {
  /** The boot samples begin: `total` throwaway sessions booted before the cycles (run/boot-samples.ts). */
  startSamples(total: number): void;
  /** One boot sample ended: its boot time in ms, or null when it was not counted. */
  sample(bootMs: number | null): void;
  start(total: number): void;
  cycle(event: CycleEvent): void;
  finish(): void;
}

export const quietProgress: Progress = { startSamples() {}, sample() {}, start() {}, cycle() {}, finish() {} };

function fmtDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 3600
    ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
    : s >= 60
      ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
      : `${s}s`;
}

function p95(values: readonly number[]): string {
  return values.length > 0 ? `${quantileSorted(Float64Array.from(values).sort(), 0.95).toFixed(1)} ms` : 'n/a';
}

/** One phase's counter: `what` says the counts after "done/total"; a bar rewritten in place, or a line per 10%. */
class Phase {
  total = 0;
  done = 0;
  private started = 0;
  private lastTenth = 0;
  private drawn = false;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly tty: boolean,
    private readonly what: (phase: Phase) => string,
  ) {}

  begin(total: number): void {
    this.total = total;
    this.done = 0;
    this.started = nowMs();
    this.lastTenth = 0;
  }

  tick(): void {
    this.done++;
    if (this.tty) {
      this.drawn = true;
      this.stream.write(`\r${this.line()}\x1b[K`);
      return;
    }
    const tenth = Math.floor((this.done / Math.max(1, this.total)) * 10);
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      this.stream.write(`progress: ${this.line()}\n`);
    }
  }

  /** End the bar's line (a terminal), so what follows starts on its own. */
  end(): void {
    if (this.drawn) this.stream.write('\n');
    this.drawn = false;
  }

  private line(): string {
    const elapsed = nowMs() - this.started;
    const eta = this.done > 0 ? fmtDuration((elapsed / this.done) * (this.total - this.done)) : '?';
    const width = 24;
    const filled = this.total > 0 ? Math.round((this.done / this.total) * width) : 0;
    const bar = this.tty ? `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ` : '';
    return `${bar}${this.done}/${this.total} ${this.what(this)}, elapsed ${fmtDuration(elapsed)}, ETA ${eta}`;
  }
}

/** Progress on `stream` (stderr); a bar when it is a TTY, a line per 10% otherwise. */
export function streamProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = stream.isTTY; // undefined on a pipe: falsy
  const boots: number[] = [];
  let uncounted = 0;
  const downtimes: number[] = [];
  let failed = 0;
  let unjudged = 0;
  const samples = new Phase(
    stream,
    tty,
    () => `boot samples${uncounted > 0 ? `, ${uncounted} not counted` : ''}, boot p95 ${p95(boots)}`,
  );
  const cycles = new Phase(
    stream,
    tty,
    () =>
      `cycles, ${failed} failed${unjudged > 0 ? `, ${unjudged} indeterminate` : ''}, downtime p95 ${p95(downtimes)}`,
  );
  return {
    startSamples(n) {
      samples.begin(n);
    },
    sample(bootMs) {
      if (bootMs === null) uncounted++;
      else boots.push(bootMs);
      samples.tick();
    },
    start(n) {
      samples.end(); // the samples' bar stays on its own line above the cycles'
      cycles.begin(n);
    },
    cycle(ev) {
      if (ev.outcome === 'fail') failed++;
      else if (ev.outcome === 'indeterminate') unjudged++;
      if (ev.outcome === 'ok' && ev.downtimeMs !== null) downtimes.push(ev.downtimeMs);
      cycles.tick();
    },
    finish() {
      samples.end();
      cycles.end();
    },
  };
}
