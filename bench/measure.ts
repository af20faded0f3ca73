// What the benches share: the median they quote, elapsed ms, a fresh microvm target with its heartbeats collected, and
// the check a resumed full heartbeat must pass.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { WorkloadModel } from '../harness/check/workload.js';
import { createMicrovmTarget } from '../harness/targets/microvm/target.js';
import type { Target } from '../harness/targets/target.js';

/** The median (the mean of the middle two for an even count; NaN for none). */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Milliseconds since `t0` (process.hrtime.bigint()). */
export const msSince = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/** Makes microvm targets under `root`, each in its own work folder, each collecting its heartbeats. */
export function microvmMaker(
  root: string,
  options: Record<string, unknown>,
): () => { target: Target; hbs: Heartbeat[] } {
  let n = 0;
  return () => {
    const workDir = path.join(root, `w${++n}`);
    mkdirSync(workDir, { mode: 0o700 });
    const target = createMicrovmTarget({ workDir, sessionDir: root, stepMs: 5, options });
    const hbs: Heartbeat[] = [];
    target.onHeartbeat((hb) => hbs.push(hb));
    return { target, hbs };
  };
}

const model = new WorkloadModel();

/**
 * Whether a resumed full heartbeat passes the checker's part rules: the saved session's nonce, not behind the
 * checkpoint, and the three digests of its step.
 */
export function verifiedResume(hb: Heartbeat, nonce: string, minStep: number): boolean {
  const want = model.expected(hb.step);
  return (
    hb.nonce === nonce &&
    hb.step >= minStep &&
    hb.fs?.digest === want.fs &&
    hb.mem?.digest === want.mem &&
    hb.tool?.digest === want.tool
  );
}
