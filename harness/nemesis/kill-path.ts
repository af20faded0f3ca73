// The runner's steps from a kill to the restore's hand-off (the killed host's exit seen, its group gone, the store's
// newest checkpoint read, the restore handed over), logged as one debug line in run.log per resume, so
// bench/resume-floor can break down kill -> hand-off, which no host's restore timeline shows.
import { performance } from 'node:perf_hooks';
import { nowMs } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { roundMs } from '../core/round.js';

/** The message of the run.log line (bench/restore-timeline.ts reads it). */
export const KILL_PATH = 'kill-path';

/** One resume's kill path: each step's duration since the step before, from the kill. */
export class KillPath {
  private readonly steps: Record<string, number> = {};
  private last: number;

  /** `killAt`: the kill's monotonic time (core/clock nowMs), as host.kill() returned it. */
  constructor(private readonly killAt: number) {
    this.last = killAt;
  }

  /** Step `name` ended at `at` (default now, on core/clock's monotonic clock). */
  mark(name: string, at = nowMs()): void {
    this.steps[name] = roundMs(at - this.last);
    this.last = at;
  }

  /** A duration outside the sequence of steps (e.g. from the kill to the host's exit, which overlaps them). */
  note(name: string, ms: number): void {
    this.steps[name] = roundMs(ms);
  }

  /** Log the steps, with the kill's wall-clock time (epoch ms, sub-ms) a host's hand-off stamp is compared with. */
  log(log: Logger): void {
    const killEpochMs = performance.timeOrigin + performance.now() - (nowMs() - this.killAt);
    log.debug({ killEpochMs: roundMs(killEpochMs), ...this.steps }, KILL_PATH);
  }
}
