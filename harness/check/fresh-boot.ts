// The check of a freshly booted session's first full heartbeat (a boot sample): all three parts at one step, each with
// the digest the workload model gives that step. Pure: it takes the heartbeat and returns the violations (empty = verified).
import type { Heartbeat, Violation } from './heartbeat.js';
import type { WorkloadModel } from './workload.js';

/** Every violation in the first full heartbeat of a fresh boot; an empty list means the boot is verified. */
export function checkFreshBoot(hb: Heartbeat, model: WorkloadModel): Violation[] {
  if (!hb.full || !hb.fs || !hb.mem || !hb.tool)
    return [
      { code: 'not-full', message: 'first heartbeat after boot is not a full heartbeat (fs, mem, tool missing)' },
    ];
  const v: Violation[] = [];
  const parts = { fs: hb.fs, mem: hb.mem, tool: hb.tool };
  const steps = [hb.step, parts.fs.step, parts.mem.step, parts.tool.step];
  if (new Set(steps).size > 1)
    v.push({
      code: 'inconsistent',
      message: `inconsistent state after boot: parts describe different steps (fs ${parts.fs.step}, mem ${parts.mem.step}, tool ${parts.tool.step}, heartbeat ${hb.step})`,
    });
  for (const [name, part] of Object.entries(parts)) {
    if (!Number.isInteger(part.step) || part.step < 0) {
      v.push({ code: 'inconsistent', message: `${name}: step ${part.step} is not a valid step` });
      continue;
    }
    const want = model.expected(part.step)[name as keyof typeof parts];
    if (part.digest !== want)
      v.push({
        code: 'digest',
        message: `${name}: digest at step ${part.step} is ${part.digest.slice(0, 16)}…, expected ${want.slice(0, 16)}…`,
      });
  }
  return v;
}
