// The probe's targetOptions, set by `soak target check --matrix` or a probing soak: `probe` (the host's binary, an
// absolute path) and `probeClockAfter` (--clock-after: the seconds after each resume at which the probe reads the wall
// clock again, classes clock-wall-<s>s, check/survival.ts). Checked by hand (no zod: the process target's host reads them).
import path from 'node:path';
import type { ConfigIssue } from '../core/config-issues.js';
import { CLOCK_AFTER_S } from '../check/survival.js';

/** The schedule, sorted, or undefined when absent; an issue when it is not distinct seconds of CLOCK_AFTER_S. */
export function probeClockAfterOption(raw: unknown, probe: unknown, issues: ConfigIssue[]): number[] | undefined {
  if (raw === undefined) return undefined;
  const allowed: readonly unknown[] = CLOCK_AFTER_S;
  const ok = Array.isArray(raw) && raw.every((s, i) => allowed.includes(s) && raw.indexOf(s) === i);
  if (!ok || probe === undefined) {
    const message = `set by \`soak target check --matrix --clock-after\`: distinct seconds of ${CLOCK_AFTER_S.join(', ')}, with the probe`;
    issues.push({ path: ['targetOptions', 'probeClockAfter'], message });
    return undefined;
  }
  return [...(raw as number[])].sort((a, b) => a - b);
}

/** `probe` and `probeClockAfter` of a target that runs the probe on the host (the process target); issues added. */
export function probeOptions(
  options: Record<string, unknown>,
  issues: ConfigIssue[],
): { probe?: string; clockAfter?: number[] } {
  const probe = options.probe;
  if (probe !== undefined && (typeof probe !== 'string' || !path.isAbsolute(probe)))
    issues.push({ path: ['targetOptions', 'probe'], message: 'set by `soak target check --matrix`: an absolute path' });
  const clockAfter = probeClockAfterOption(options.probeClockAfter, probe, issues);
  return { ...(typeof probe === 'string' ? { probe } : {}), ...(clockAfter ? { clockAfter } : {}) };
}
