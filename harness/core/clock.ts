// Monotonic time in milliseconds (sub-ms precision) and small sleep helpers. Wall clock only for report dates.

const origin = process.hrtime.bigint();

/** ms since this process started its clock, monotonic, with µs resolution. */
export function nowMs(): number {
  return Number(process.hrtime.bigint() - origin) / 1e6;
}

/**
 * CLOCK_MONOTONIC in ms: unlike nowMs(), the same clock in every process of this machine, so a child's timestamps
 * compare with the parent's (a session host's alive ticks with the runner's deadlines).
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

/** Block this thread for `ms` (a lock taker's short wait between tries, where nothing else may run meanwhile). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.max(0, ms));
}

/** A stopwatch: ms since creation. */
export function stopwatch(): () => number {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start) / 1e6;
}

/** The longest wait a Node timer (setTimeout, setInterval) can hold: past it the timer fires at once (after 1 ms). */
export const TIMER_MAX_MS = 2 ** 31 - 1;
