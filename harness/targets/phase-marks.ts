// When each phase of an operation ended, on the process's own monotonic clock (performance.now(): ms since it started),
// so a host can put a target's restore phases on one timeline with its own start-up.
import { performance } from 'node:perf_hooks';

/**
 * The restore mark of the instant the restored state may start running (a micro-VM's `cont` is about to be sent):
 * the host measures from it how long the state could have run before its first full heartbeat (check/checker.ts).
 */
export const RUNS_FROM = 'runsFrom';

/** Phase name -> performance.now() at its end, in the order marked. */
export type PhaseMarks = Record<string, number>;

/** Records phase ends; `marks` is a copy that later marks do not change. */
export class PhaseRecorder {
  private readonly ends: PhaseMarks = {};

  /** The phase `name` ended now. */
  mark(name: string): void {
    this.ends[name] = performance.now();
  }

  get marks(): PhaseMarks {
    return { ...this.ends };
  }
}
