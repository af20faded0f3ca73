// The check of a fresh boot's first full heartbeat (boot samples): a correct one is verified; a skewed part, a wrong
// digest or a light heartbeat is caught (the negative controls).
import { describe, expect, it } from 'vitest';
import { checkFreshBoot } from '../../harness/check/fresh-boot.js';
import type { Heartbeat } from '../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../harness/check/workload.js';

const model = new WorkloadModel();

/** A full heartbeat at `step` whose parts carry the model's digests of their own steps. */
function heartbeat(step: number, fsStep = step): Heartbeat {
  return {
    step,
    nonce: 'abcdef0123456789',
    full: true,
    fs: { step: fsStep, digest: model.expected(fsStep).fs },
    mem: { step, digest: model.expected(step).mem },
    tool: { step, digest: model.expected(step).tool },
  };
}

const codes = (hb: Heartbeat): string[] => checkFreshBoot(hb, model).map((v) => v.code);

describe('checkFreshBoot', () => {
  it('verifies a fresh session at step 0 and at step 7', () => {
    expect(checkFreshBoot(heartbeat(0), model)).toEqual([]);
    expect(checkFreshBoot(heartbeat(7), model)).toEqual([]);
  });

  it('catches parts at different steps (the filesystem one step behind)', () => {
    expect(codes(heartbeat(7, 6))).toEqual(['inconsistent']);
  });

  it('catches a digest the workload model does not give that step', () => {
    const hb = heartbeat(5);
    hb.mem = { step: 5, digest: model.expected(4).mem };
    expect(codes(hb)).toEqual(['digest']);
    expect(checkFreshBoot(hb, model)[0]?.message).toMatch(/^mem: digest at step 5 is /);
  });

  it('refuses a light heartbeat', () => {
    expect(codes({ step: 3, nonce: 'n', full: false })).toEqual(['not-full']);
  });
});
