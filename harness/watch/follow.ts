// `soak watch`'s reader: polls a run's journal and, whenever it grew, analyses and judges it again (the same loadRuns
// and judge as `soak report`), keeping the newest snapshot for the page. Read-only: it opens the journal, nothing else.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { JOURNAL_FILE, loadRuns } from '../analysis/load-runs.js';
import { judge } from '../gates/judge.js';
import { tailLines } from '../live/tail.js';
import { plannedCycles, type Shard } from '../scenario/shard.js';
import { watchSnapshot, type Pace, type WatchSnapshot } from './snapshot.js';

/** How much of the journal's head is read for run-start (its scenario's planned cycles). */
const HEAD_BYTES = 1 << 20;

/** Follows one run folder; `snapshot()` is the newest analysis (null until the first one is done). */
export class JournalFollower {
  private last: WatchSnapshot | null = null;
  private seenSize = -1;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private readonly journal: string;

  constructor(
    readonly runDir: string,
    private readonly everyMs = 500,
    /** --strict-timing: timing gates judged as measured on a saturated machine (gates/judge.ts). */
    private readonly strictTiming = false,
  ) {
    this.journal = path.join(runDir, JOURNAL_FILE);
  }

  /** Analyse once now, then again whenever the journal changes. */
  async start(): Promise<void> {
    await this.poll();
    this.timer = setInterval(() => void this.poll(), this.everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  snapshot(): WatchSnapshot | null {
    return this.last;
  }

  private async poll(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const size = statSync(this.journal).size;
      if (size === this.seenSize) return;
      const { analysis } = await loadRuns([this.runDir]);
      this.seenSize = size;
      this.last = watchSnapshot(
        this.runDir,
        analysis,
        judge(analysis, { strictTiming: this.strictTiming }),
        this.pace(),
      );
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (this.last) this.last = { ...this.last, error: message };
      else throw err;
    } finally {
      this.busy = false;
    }
  }

  /**
   * Planned cycles (run-start's scenario; a shard runs its part; each of its sessions at once runs them all) and the
   * run's time so far (the last event's t).
   */
  private pace(): Pace {
    let planned: number | null = null;
    let sessions = 1;
    const fd = openSync(this.journal, 'r');
    try {
      const buf = Buffer.alloc(HEAD_BYTES);
      const n = readSync(fd, buf, 0, HEAD_BYTES, 0);
      const first = buf.subarray(0, n).toString('utf8').split('\n', 1)[0] ?? '';
      const start = JSON.parse(first) as {
        manualKills?: boolean;
        scenario?: { cycles?: number; sessions?: number };
        shard?: Shard;
      };
      const cycles = start.scenario?.cycles;
      const count = start.scenario?.sessions;
      if (typeof count === 'number' && Number.isInteger(count) && count >= 1) sessions = count; // the reader holds the rest to it
      if (typeof cycles === 'number' && !start.manualKills) planned = plannedCycles(cycles, start.shard) * sessions;
    } catch {
      // no readable run-start yet: no ETA
    } finally {
      closeSync(fd);
    }
    let elapsedMs: number | null = null;
    try {
      const t = (JSON.parse(tailLines(this.journal, 1)[0] ?? '{}') as { t?: unknown }).t;
      elapsedMs = typeof t === 'number' ? t : null;
    } catch {
      // a line being written: no ETA this time
    }
    return { planned, elapsedMs, sessions };
  }
}
