// Machine load through a run: a timer and each cycle's end take a sample (core/machine-load.ts: asynchronous /proc
// reads, so no kill waits on it); samples are held and journaled between cycles, never on the kill path.
import { nowMs } from '../core/clock.js';
import { MachineLoadSampler, type LoadSample } from '../core/machine-load.js';
import type { JournalWriter } from '../journal/writer.js';

/** How often the timer samples when cycles are long, ms. */
export const LOAD_SAMPLE_EVERY_MS = 2000;

/** Samples the runner's machine load and journals the samples as machine-load events at cycle boundaries. */
export class LoadSampling {
  private readonly sampler: MachineLoadSampler;
  private readonly pending: Array<LoadSample & { cycle: number }> = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> = Promise.resolve();
  private cycle = 0;

  constructor(
    private readonly journal: JournalWriter,
    everyMs = LOAD_SAMPLE_EVERY_MS,
    root = process.pid,
  ) {
    this.sampler = new MachineLoadSampler(root, nowMs);
    this.take(); // the first reading: the baseline of the first window
    this.timer = setInterval(() => this.take(), everyMs);
    this.timer.unref();
  }

  private take(): void {
    const cycle = this.cycle;
    this.inFlight = this.inFlight
      .then(() => this.sampler.sample())
      .then((s) => {
        if (s) this.pending.push({ ...s, cycle });
      })
      .catch(() => {}); // a sample that cannot be read is skipped; the run goes on
  }

  /** Cycle `cycle` ended: journal what was sampled so far, and start this cycle's own sample. */
  cycleEnded(cycle: number): void {
    this.flush();
    this.cycle = cycle;
    this.take();
  }

  private flush(): void {
    for (const s of this.pending.splice(0)) this.journal.append({ type: 'machine-load', ...s });
  }

  /** Stop the timer, wait for a sample in flight, take a last one and journal everything held. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.take();
    await this.inFlight;
    this.flush();
  }
}
