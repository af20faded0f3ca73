// The resume checker on hand-made observations: a correct resume passes, each violation code fires for its own case only;
// and the workload model against an independent recomputation with node:crypto.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkResume, type ResumeObservation } from '../../harness/check/checker.js';
import type { Heartbeat } from '../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../harness/check/workload.js';

const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
const NONCE = '0123456789abcdef';

/** A full heartbeat whose fs, mem and tool describe steps fsStep / memStep / toolStep with the model's digests. */
function heartbeat(
  model: WorkloadModel,
  memStep: number,
  fsStep = memStep,
  toolStep = memStep,
  nonce = NONCE,
): Heartbeat {
  return {
    step: memStep,
    nonce,
    full: true,
    fs: { step: fsStep, digest: model.expected(fsStep).fs },
    mem: { step: memStep, digest: model.expected(memStep).mem },
    tool: { step: toolStep, digest: model.expected(toolStep).tool },
  };
}

/** Killed at step 40, checkpoint 5 (step 32) restored and newest: resuming anywhere in [32, 40] is correct. */
function observation(hb: Heartbeat, over: Partial<ResumeObservation> = {}): ResumeObservation {
  return { heartbeat: hb, restored: { seq: 5, step: 32 }, killStep: 40, nonce: NONCE, latestCompleteSeq: 5, ...over };
}

const codes = (obs: ResumeObservation, model = new WorkloadModel()): string[] =>
  checkResume(obs, model).map((v) => v.code);

describe('checkResume', () => {
  const model = new WorkloadModel();

  it('passes a correct resume at the restored step, in between, and at the kill step', () => {
    for (const step of [32, 36, 40]) expect(checkResume(observation(heartbeat(model, step)), model)).toEqual([]);
  });

  it('lost-acknowledged-checkpoint: a power loss took a checkpoint whose commit was acknowledged (negative control)', () => {
    const hb = heartbeat(model, 32);
    expect(codes(observation(hb, { acknowledgedSeq: 5 }))).toEqual([]);
    expect(codes(observation(hb, { acknowledgedSeq: 4 }))).toEqual([]);
    expect(codes(observation(hb, { acknowledgedSeq: 6 }))).toEqual(['lost-acknowledged-checkpoint']);
  });

  it('skips the not-latest check when the runner did not look (latestCompleteSeq null)', () => {
    expect(
      codes(observation(heartbeat(model, 32), { restored: { seq: 4, step: 32 }, latestCompleteSeq: null })),
    ).toEqual([]);
  });

  it('nonce: a changed boot nonce is a fresh boot passed off as a resume', () => {
    const v = checkResume(observation(heartbeat(model, 34, 34, 34, 'ffffffffffffffff')), model);
    expect(v.map((x) => x.code)).toEqual(['nonce']);
    expect(v[0]!.message).toContain('ffffffffffffffff');
    expect(v[0]!.message).toContain(NONCE);
  });

  it('a fresh boot (new nonce, step 0) is caught twice: nonce and regressed', () => {
    expect(codes(observation(heartbeat(model, 0, 0, 0, 'feedfacefeedface')))).toEqual(['nonce', 'regressed']);
  });

  it('inconsistent: the 40 ms skew puts fs 8 steps behind memory and tool (each digest right for its own step)', () => {
    const v = checkResume(observation(heartbeat(model, 40, 32, 40)), model);
    expect(v.map((x) => x.code)).toEqual(['inconsistent']);
    expect(v[0]!.message).toBe(
      'inconsistent state: parts describe different steps (fs 32, mem 40, tool 40, heartbeat 40)',
    );
  });

  it('inconsistent: a tool one step ahead of memory', () => {
    expect(codes(observation(heartbeat(model, 35, 35, 36)))).toEqual(['inconsistent']);
  });

  it('inconsistent: a negative or fractional part step is not a valid step', () => {
    const hb = heartbeat(model, 34);
    hb.fs = { step: -1, digest: 'x' };
    expect(codes(observation(hb))).toEqual(['inconsistent', 'inconsistent']);
    const hb2 = heartbeat(model, 34);
    hb2.tool = { step: 34.5, digest: 'x' };
    expect(codes(observation(hb2))).toEqual(['inconsistent', 'inconsistent']);
  });

  it('digest: a wrong digest in any one part, at a consistent step', () => {
    for (const part of ['fs', 'mem', 'tool'] as const) {
      const hb = heartbeat(model, 36);
      hb[part] = { step: 36, digest: model.expected(35)[part] };
      const v = checkResume(observation(hb), model);
      expect(v.map((x) => x.code)).toEqual(['digest']);
      expect(v[0]!.message.startsWith(`${part}: digest at step 36`)).toBe(true);
    }
  });

  it('digest: a digest from another part (mem chain reported as the tool chain) is wrong', () => {
    const hb = heartbeat(model, 33);
    hb.tool = { step: 33, digest: model.expected(33).mem };
    expect(codes(observation(hb))).toEqual(['digest']);
  });

  it('regressed: behind the restored checkpoint by one step', () => {
    const v = checkResume(observation(heartbeat(model, 31)), model);
    expect(v.map((x) => x.code)).toEqual(['regressed']);
    expect(v[0]!.message).toContain('checkpoint 5 (step 32)');
  });

  it('ahead: one step beyond the kill step (digests still checked and right)', () => {
    expect(codes(observation(heartbeat(model, 41)))).toEqual(['ahead']);
  });

  it('ahead: far beyond the kill step, with invented digests, is reported as ahead only', () => {
    const hb: Heartbeat = {
      step: 90,
      nonce: NONCE,
      full: true,
      fs: { step: 90, digest: 'a' },
      mem: { step: 90, digest: 'b' },
      tool: { step: 90, digest: 'c' },
    };
    expect(codes(observation(hb))).toEqual(['ahead']);
  });

  it('ahead: a wrong digest at killStep + 1 is still reported', () => {
    const hb = heartbeat(model, 41);
    hb.mem = { step: 41, digest: sha('invented') };
    expect(codes(observation(hb))).toEqual(['digest', 'ahead']);
  });

  // The micro-VM's knee (bench/README.md): a guest restored, killed before it reported past the restored step 82, then
  // restored again, ran step 83 before its first request reached it; its host timed it (`ran`).
  it('ahead allows the steps the restored state could take in the time it ran before it reported', () => {
    const restored = { restored: { seq: 9, step: 82 }, killStep: 82, latestCompleteSeq: 9 };
    const hb = heartbeat(model, 83);
    expect(codes(observation(hb, restored))).toEqual(['ahead']); // no timing: no step allowed (exec adapters)
    expect(codes(observation(hb, { ...restored, ran: { ms: 3, stepMs: 5 } }))).toEqual([]); // 0 + 2 steps allowed
    expect(codes(observation(heartbeat(model, 84), { ...restored, ran: { ms: 3, stepMs: 5 } }))).toEqual([]);
    // negative control: one step past what 3 ms could hold is invented, and says how much time it had
    const v = checkResume(observation(heartbeat(model, 85), { ...restored, ran: { ms: 3, stepMs: 5 } }), model);
    expect(v.map((x) => x.code)).toEqual(['ahead']);
    expect(v[0]!.message).toContain('plus the 2 it could take in the 3 ms it ran before it reported');
    expect(codes(observation(heartbeat(model, 92), { ...restored, ran: { ms: 40, stepMs: 5 } }))).toEqual([]);
    expect(codes(observation(heartbeat(model, 93), { ...restored, ran: { ms: 40, stepMs: 5 } }))).toEqual(['ahead']);
  });

  it('ahead: steps taken in the time it ran are still held to the model', () => {
    const hb = heartbeat(model, 84);
    hb.fs = { step: 84, digest: sha('invented') };
    const obs = observation(hb, { killStep: 82, ran: { ms: 10, stepMs: 5 } });
    expect(codes(obs)).toEqual(['digest']);
  });

  it('ahead: a timing that is no timing (step period 0, negative, NaN) allows no step', () => {
    for (const ran of [
      { ms: 50, stepMs: 0 },
      { ms: -1, stepMs: 5 },
      { ms: Number.NaN, stepMs: 5 },
    ])
      expect(codes(observation(heartbeat(model, 41), { ran }))).toEqual(['ahead']);
  });

  it('not-latest: restored an older checkpoint than the newest complete one', () => {
    const v = checkResume(observation(heartbeat(model, 34), { restored: { seq: 4, step: 24 } }), model);
    expect(v.map((x) => x.code)).toEqual(['not-latest']);
    expect(v[0]!.message).toBe('restored checkpoint 4, but the newest complete checkpoint was 5');
  });

  it('not-full: a light heartbeat, or a full one missing a part, is rejected on its own', () => {
    const light: Heartbeat = { step: 34, nonce: 'other', full: false };
    expect(codes(observation(light))).toEqual(['not-full']);
    const { tool: _tool, ...noTool } = heartbeat(model, 34);
    expect(codes(observation(noTool))).toEqual(['not-full']);
    const flagged = { ...heartbeat(model, 34), full: false };
    expect(codes(observation(flagged))).toEqual(['not-full']);
  });

  it('work-failed: the coding workload reports more failures than the state the killed host started from', () => {
    const work = (failures: number) => ({ iteration: 30, failures, served: 30, last: failures > 0 ? 'test' : '-' });
    const hb = (failures: number): Heartbeat => ({ ...heartbeat(model, 36), work: work(failures) });
    expect(codes(observation(hb(0)))).toEqual([]);
    expect(codes(observation(hb(0), { workBefore: 0 }))).toEqual([]);
    expect(codes(observation(hb(1)))).toEqual(['work-failed']); // no start recorded: every failure is new
    expect(codes(observation(hb(1), { workBefore: 0 }))).toEqual(['work-failed']);
    expect(codes(observation(hb(1), { workBefore: 1 }))).toEqual([]); // an earlier cycle's failure, judged there
    expect(codes(observation(hb(3), { workBefore: 1 }))).toEqual(['work-failed']);
    expect(codes(observation(hb(0), { workBefore: 2 }))).toEqual([]); // restored from before the host's start
    const [v] = checkResume(observation(hb(3), { workBefore: 1 }), model);
    expect(v!.message).toContain('failed 2 more time(s) by its iteration 30 (last: test)');
  });

  it('reports every problem of a badly wrong resume at once', () => {
    const hb = heartbeat(model, 20, 18, 20, 'beefbeefbeefbeef');
    expect(codes(observation(hb, { restored: { seq: 3, step: 24 } }))).toEqual([
      'nonce',
      'inconsistent',
      'regressed',
      'not-latest',
    ]);
  });
});

describe('WorkloadModel against an independent recomputation', () => {
  // c_N = sha256hex(c_{N-1} + ":" + N), seeds sha256hex("mem:0") / sha256hex("tool:0"); log line "step N <m_N[:16]>\n".
  const m0 = sha('mem:0');
  const m1 = sha(`${m0}:1`);
  const m2 = sha(`${m1}:2`);
  const m3 = sha(`${m2}:3`);
  const t0 = sha('tool:0');
  const t3 = sha(`${sha(`${sha(`${t0}:1`)}:2`)}:3`);
  const log3 = `step 1 ${m1.slice(0, 16)}\nstep 2 ${m2.slice(0, 16)}\nstep 3 ${m3.slice(0, 16)}\n`;

  it('step 0 is the seeds and the digest of an empty file', () => {
    expect(new WorkloadModel().expected(0)).toEqual({
      fs: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      mem: m0,
      tool: t0,
    });
  });

  it('step 3 matches the chains and log computed by hand', () => {
    expect(new WorkloadModel().expected(3)).toEqual({ fs: sha(log3), mem: m3, tool: t3 });
  });

  it('answers out of order and repeatedly the same as a fresh model', () => {
    const m = new WorkloadModel();
    const at50 = m.expected(50);
    expect(m.expected(3)).toEqual({ fs: sha(log3), mem: m3, tool: t3 });
    expect(m.expected(50)).toEqual(at50);
    expect(new WorkloadModel().expected(50)).toEqual(at50);
  });

  it('step 200 matches a loop recomputation (mem and tool chains differ, fs is the log of 200 lines)', () => {
    let mem = m0;
    let tool = t0;
    let log = '';
    for (let n = 1; n <= 200; n++) {
      mem = sha(`${mem}:${n}`);
      tool = sha(`${tool}:${n}`);
      log += `step ${n} ${mem.slice(0, 16)}\n`;
    }
    expect(new WorkloadModel().expected(200)).toEqual({ fs: sha(log), mem, tool });
    expect(mem).not.toBe(tool);
  });

  it('rejects a negative or fractional step', () => {
    expect(() => new WorkloadModel().expected(-1)).toThrow(RangeError);
    expect(() => new WorkloadModel().expected(1.5)).toThrow(RangeError);
  });
});
