// A warm standby host's side of the hand-off: wait, everything loaded and the store open, for the runner's one-line
// order on stdin (restore the newest checkpoint, or start a fresh session); and the test-only switches that make a
// standby skip that restore, or restore its pre-read without the hand-off's re-read (standby-newest.ts).
import { createInterface } from 'node:readline';

/** The line the runner writes to a standby host's stdin to hand it the restore. */
export const HAND_OFF_LINE = 'restore';
/** The line that hands a standby host a fresh session instead (fresh sessions with `standby: true`). */
export const BOOT_HAND_OFF_LINE = 'boot';

/** What a standby host is handed. */
export type HandOff = typeof HAND_OFF_LINE | typeof BOOT_HAND_OFF_LINE;

/**
 * SOAK_TEST_STANDBY_SKIPS_RESTORE=1 (TEST-ONLY negative control): a standby handed the restore boots a fresh session
 * instead and still reports the checkpoint as restored; the checker's nonce and digest checks must catch it.
 */
export const STANDBY_SKIPS_RESTORE = 'SOAK_TEST_STANDBY_SKIPS_RESTORE';

/**
 * SOAK_TEST_STANDBY_STALE_NEWEST=1 (TEST-ONLY negative control): a standby restores the checkpoint it pre-read when it
 * started, without resolving what was committed after it (it says it is ready only once a newer one exists); the
 * checker's not-latest check must catch it.
 */
export const STANDBY_STALE_NEWEST = 'SOAK_TEST_STANDBY_STALE_NEWEST';

/** Whether the test-only stale pre-read switch is on. */
export function standbyStaleNewest(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[STANDBY_STALE_NEWEST] === '1';
}

/** Whether the test-only skip switch is on. */
export function standbySkipsRestore(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[STANDBY_SKIPS_RESTORE] === '1';
}

/** Resolve with the hand-off line when it arrives on stdin; reject when stdin ends first (the runner is gone). */
export function awaitHandOff(input: NodeJS.ReadableStream = process.stdin): Promise<HandOff> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input });
    lines.on('line', (line) => {
      const order = line.trim();
      if (order !== HAND_OFF_LINE && order !== BOOT_HAND_OFF_LINE) return;
      resolve(order); // first: close() below emits 'close' at once, whose reject must find the promise settled
      lines.close();
    });
    lines.on('close', () => reject(new Error('standby: stdin closed before the hand-off (the runner is gone)')));
  });
}
