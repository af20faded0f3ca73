// The freeze checker on hand-made observations: a session that carried on passes (at the frozen step or beyond it);
// each way a "continued" session can be wrong is caught: lost steps, another boot, inconsistent parts, wrong digests.
import { describe, expect, it } from 'vitest';
import { checkContinued, type ContinueObservation } from '../../harness/check/continued.js';
import type { Heartbeat } from '../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../harness/check/workload.js';

const NONCE = '0123456789abcdef';
const model = new WorkloadModel();

function heartbeat(memStep: number, fsStep = memStep, nonce = NONCE): Heartbeat {
  return {
    step: memStep,
    nonce,
    full: true,
    fs: { step: fsStep, digest: model.expected(fsStep).fs },
    mem: { step: memStep, digest: model.expected(memStep).mem },
    tool: { step: memStep, digest: model.expected(memStep).tool },
  };
}

/** Frozen at step 40. */
const codes = (hb: Heartbeat, over: Partial<ContinueObservation> = {}): string[] =>
  checkContinued({ heartbeat: hb, frozenStep: 40, nonce: NONCE, ...over }, model).map((v) => v.code);

describe('checkContinued', () => {
  it('passes a session that carried on: at the frozen step, or any number of steps beyond it', () => {
    for (const step of [40, 41, 400]) expect(codes(heartbeat(step))).toEqual([]);
  });

  it('regressed: the session is behind the last step seen before SIGSTOP (a restore passed off as a thaw)', () => {
    expect(codes(heartbeat(39))).toEqual(['regressed']);
    expect(checkContinued({ heartbeat: heartbeat(32), frozenStep: 40, nonce: NONCE }, model)[0]!.message).toMatch(
      /lost steps across a freeze: step 32 after SIGCONT, step 40/,
    );
  });

  it('nonce: another boot after the freeze', () => {
    expect(codes(heartbeat(41, 41, 'ffffffffffffffff'))).toEqual(['nonce']);
  });

  it('inconsistent and digest: parts that describe different steps, or a wrong digest', () => {
    expect(codes(heartbeat(45, 44))).toEqual(['inconsistent']);
    const hb = heartbeat(45);
    expect(codes({ ...hb, mem: { step: 45, digest: model.expected(44).mem } })).toEqual(['digest']);
  });

  it('not-full: a light heartbeat cannot be checked', () => {
    expect(codes({ step: 45, nonce: NONCE, full: false })).toEqual(['not-full']);
  });
});
