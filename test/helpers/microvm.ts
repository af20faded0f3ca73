// Real micro-VM targets for the microvm tests: each on its own private work folder under the test's root, heartbeats
// collected as they arrive; and a poll for a condition the heartbeats reach (from observed progress, not a sleep).
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Heartbeat } from '../../harness/check/heartbeat.js';
import { createMicrovmTarget } from '../../harness/targets/microvm/target.js';
import type { Target } from '../../harness/targets/target.js';

/** A made target, the heartbeats it has sent so far, and its work folder. */
export interface MadeTarget {
  target: Target;
  hbs: Heartbeat[];
  workDir: string;
}

/**
 * A maker of microvm targets with `defaults` under each call's options; `root()` is read at each call (tests make it in
 * beforeAll): work folders root/w1, root/w2, ..., one session folder root/session.
 */
export function microvmTargets(
  root: () => string,
  defaults: Record<string, unknown>,
): (options?: Record<string, unknown>) => Promise<MadeTarget> {
  let made = 0;
  return async (options = {}) => {
    const workDir = path.join(root(), `w${++made}`);
    await mkdir(workDir, { mode: 0o700 });
    const sessionDir = path.join(root(), 'session');
    const target = createMicrovmTarget({ workDir, sessionDir, stepMs: 5, options: { ...defaults, ...options } });
    const hbs: Heartbeat[] = [];
    target.onHeartbeat((hb) => hbs.push(hb));
    return { target, hbs, workDir };
  };
}

/** `fn()` once it is defined, polled every 10 ms; throws "timed out waiting for `what`" after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
