// Real QEMU micro-VM tests: boot, checkpoint, SIGKILL, restore, verify; skew control; kill during a checkpoint write.
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hasQemu } from '../../helpers/qemu.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TargetError } from '../../../harness/core/errors.js';
import { Store } from '../../../harness/store/store.js';
import type { CheckpointSource } from '../../../harness/store/types.js';
import { createMicrovmTarget } from '../../../harness/targets/microvm/target.js';
import { createDisk } from '../../../harness/targets/guest/disk.js';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import type { Target } from '../../../harness/targets/target.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import { matching } from '../../helpers/match.js';
import { DirCheckpoint, microvmTargets, waitFor } from '../../helpers/microvm.js';
import { checkResume } from '../../../harness/check/checker.js';

const qemuPresent = hasQemu();
if (!qemuPresent)
  console.warn('skipping microvm tests: qemu-system-x86_64 not found (apt-get install qemu-system-x86)');

const model = new WorkloadModel();
let root = '';

/** A microvm target on a fresh private workDir, collecting heartbeats. */
// exactStep: the agent holds between steps before a stop, so a checkpoint's step is exact (the 'any instant' case turns it off)
const makeTarget = microvmTargets(() => root, { accel: 'tcg', exactStep: true });

const reached = (hbs: Heartbeat[], step: number) => () => ((hbs.at(-1)?.step ?? -1) >= step ? true : undefined);
const fullAfter = (hbs: Heartbeat[], from: number) => () => hbs.slice(from).find((h) => h.full);

/** Does a full heartbeat describe one step, with every digest matching the recomputed chains? */
function consistent(hb: Heartbeat): boolean {
  const want = model.expected(hb.step);
  return (
    hb.fs?.step === hb.step &&
    hb.mem?.step === hb.step &&
    hb.tool?.step === hb.step &&
    hb.fs.digest === want.fs &&
    hb.mem.digest === want.mem &&
    hb.tool.digest === want.tool
  );
}

function qemuPid(t: Target): number {
  const pid = (t as unknown as { qemuPid?: number }).qemuPid;
  if (pid === undefined) throw new Error('no QEMU pid');
  return pid;
}

describe.skipIf(!qemuPresent)('microvm target (real QEMU, TCG)', () => {
  const live: Target[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mvt-'));
  });
  afterAll(async () => {
    for (const t of live) await t.destroy().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  /** Restore `c` into a new target with `options`: same nonce, exactly at the checkpoint step, consistent. */
  async function expectConsistentResume(
    options: Record<string, unknown>,
    c: CheckpointSource,
    nonce: string,
    step: number,
    exact = true,
    upTo = step + 1,
  ): Promise<void> {
    const b = await makeTarget(options);
    live.push(b.target);
    await b.target.restore(c);
    const hb = await waitFor(fullAfter(b.hbs, 0), 30_000, 'full heartbeat after restore');
    expect(hb.nonce).toBe(nonce);
    // The checkpoint's step is the agent's held step at the stop (its HOLD acknowledgement follows every heartbeat it
    // wrote), and the restored agent answers the full-heartbeat request before a next step: exactly that step.
    if (exact) expect(hb.step).toBe(step);
    else expect(hb.step - step).toBeGreaterThanOrEqual(0); // a lower bound: at or past it
    // ... and never past what the first guest had reported before its kill (`upTo`)
    if (!exact) expect(hb.step, `restored step vs the last one seen before the kill`).toBeLessThanOrEqual(upTo);
    expect(consistent(hb)).toBe(true);
    await b.target.destroy();
  }

  let ckpt: DirCheckpoint;
  let nonce = '';

  it('boots, reports a consistent full heartbeat, checkpoints, survives SIGKILL and restores consistently', async () => {
    const a = await makeTarget();
    live.push(a.target);
    await a.target.boot();
    const first = a.hbs.find((h) => h.full)!;
    expect(first.step).toBe(0);
    expect(consistent(first)).toBe(true);
    nonce = first.nonce;
    expect(nonce).toMatch(/^[0-9a-f]{16}$/);
    expect(a.target.describe()).toMatchObject({
      accelerator: 'tcg',
      memoryMiB: 256,
      disk: true,
      qemuVersion: matching(/^\d+\.\d+/),
    });
    expect(a.target.describe().imageHash).toMatch(/^[0-9a-f]{64}$/);

    await waitFor(reached(a.hbs, 20), 30_000, 'step 20');
    const from = a.hbs.length;
    a.target.requestFullHeartbeat();
    expect(consistent(await waitFor(fullAfter(a.hbs, from), 5000, 'requested full heartbeat'))).toBe(true);

    ckpt = new DirCheckpoint(path.join(root, 'ckpt1'), 1);
    const res = await a.target.checkpoint(ckpt, { skewMs: 0 });
    ckpt.step = res.step;
    expect(res.step).toBeGreaterThanOrEqual(20);
    expect(res.meta.stepExact).toBe(1);
    expect(res.pauseMs).toBeGreaterThan(0);
    expect(res.meta).toMatchObject({ accelerator: 'tcg', guestRamMiB: 256 });
    expect(ckpt.parts()).toEqual(['microvm.json', 'ram', 'disk']);

    // The guest resumes after the checkpoint and carries on.
    await waitFor(reached(a.hbs, res.step + 20), 30_000, 'work after checkpoint');
    process.kill(qemuPid(a.target), 'SIGKILL');
    await a.target.destroy();

    const b = await makeTarget();
    live.push(b.target);
    await b.target.restore(ckpt);
    const hb = await waitFor(fullAfter(b.hbs, 0), 30_000, 'full heartbeat after restore');
    expect(hb.nonce).toBe(nonce);
    // Held between steps at the stop: the restored guest reports exactly the checkpoint's step (not a heartbeat that
    // was still in the guest's UART buffer at the stop, which a loaded host used to record instead: issue 16).
    expect(hb.step).toBe(res.step);
    expect(consistent(hb)).toBe(true);
    await waitFor(reached(b.hbs, hb.step + 10), 30_000, 'work after restore');
    await b.target.destroy();
  });

  it('skew negative control: filesystem 40 ms older than memory is detected after restore', async () => {
    const a = await makeTarget();
    live.push(a.target);
    await a.target.restore(ckpt);
    await waitFor(reached(a.hbs, ckpt.step + 10), 30_000, 'steps');
    // A trial tests the checker only if the guest took steps inside the skew window (a starved guest may not).
    // The target freezes the skewed RAM capture at a step boundary, so the restored guest reports exactly that step.
    let effective = 0;
    let detected = 0;
    for (let i = 0; i < 6 && effective < 2; i++) {
      const skewed = new DirCheckpoint(path.join(root, `skew${i}`), 10 + i);
      const res = await a.target.checkpoint(skewed, { skewMs: 40 });
      expect(res.meta.skewAppliedMs).toBe(40);
      const b = await makeTarget();
      live.push(b.target);
      await b.target.restore(skewed);
      const hb = await waitFor(fullAfter(b.hbs, 0), 30_000, 'full heartbeat after skewed restore');
      expect(hb.nonce).toBe(nonce);
      expect(hb.step).toBe(res.step);
      // Whether the skew took effect is read from the restored state itself: the target's skewSteps counts from the
      // last heartbeat that reached it before the disk copy, which a loaded host delivers late (an over-count).
      expect(hb.mem!.step).toBe(hb.tool!.step);
      expect(hb.fs!.step).toBeLessThanOrEqual(hb.mem!.step); // never the other way round
      const obs = { heartbeat: hb, restored: { seq: 10 + i, step: res.step }, killStep: res.step, nonce };
      const violations = checkResume({ ...obs, latestCompleteSeq: null }, model).map((v) => v.code);
      if (hb.fs!.step < hb.mem!.step) {
        effective++;
        if (violations.includes('inconsistent')) detected++;
      } else expect(violations).toEqual([]); // no skew took effect: the checker must not invent one
      await waitFor(reached(b.hbs, hb.step + 5), 30_000, 'steps after a skewed restore (hold released)');
      await b.target.destroy();
    }
    expect(effective).toBeGreaterThan(0);
    expect(detected).toBe(effective);
    await a.target.destroy();
  });

  it('a checkpoint cut off by killing QEMU mid-migration fails cleanly and leaves no partial part', async () => {
    const a = await makeTarget();
    live.push(a.target);
    await a.target.restore(ckpt);
    await waitFor(() => a.hbs.at(-1), 30_000, 'a heartbeat');
    const sink = new DirCheckpoint(path.join(root, 'torn'), 99);
    const pending = a.target.checkpoint(sink, { skewMs: 0 });
    // Kill once the RAM stream has started arriving (QEMU writes it through cat into `.partial`, renamed when complete):
    // the guest is paused and the migration is mid-way.
    const ramFile = path.join(a.workDir, 'ckpt-1.ram.partial');
    await waitFor(
      () => (existsSync(ramFile) && statSync(ramFile).size > 0 ? true : undefined),
      30_000,
      'migration under way',
    );
    process.kill(qemuPid(a.target), 'SIGKILL');
    const err = await pending.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TargetError);
    expect((err as Error).message).toMatch(/saving RAM state|QMP (migrate|query-migrate)/);
    expect((err as Error).message).toMatch(/SIGKILL/); // diagnostics name how QEMU died
    expect(sink.parts()).toEqual([]);
    expect((await readdir(a.workDir)).filter((f) => f.startsWith('ckpt-') || f.startsWith('disk-'))).toEqual([]);
    await expect(a.target.checkpoint(sink, { skewMs: 0 })).rejects.toThrow(/QEMU is gone/);
    await a.target.destroy();
  });

  it('ram-only guest (no disk): checkpoint, SIGKILL, restore, consistent', async () => {
    const a = await makeTarget({ disk: false });
    live.push(a.target);
    await a.target.boot();
    const first = a.hbs.find((h) => h.full)!;
    expect(consistent(first)).toBe(true);
    await waitFor(reached(a.hbs, 10), 30_000, 'step 10');
    const c = new DirCheckpoint(path.join(root, 'ramonly'), 1);
    const res = await a.target.checkpoint(c, { skewMs: 0 });
    expect(c.parts()).toEqual(['microvm.json', 'ram']);
    expect(res.meta.ramSave).toBe('paused'); // the default (live save is opt-in: CHANGELOG)
    expect(res.meta.stepExact).toBe(1);
    process.kill(qemuPid(a.target), 'SIGKILL');
    await a.target.destroy();
    await expectConsistentResume({ disk: false }, c, first.nonce, res.step);
  });

  it('warm standby with a disk: QEMU waits on a placeholder image, the restore overwrites it in place and the guest reads the checkpoint disk; negative control: a blank disk in the same checkpoint does not verify', async () => {
    // It restores the first test's checkpoint: if that test failed (e.g. a boot past its timeout on a loaded host), say
    // so here rather than fail on an undefined checkpoint.
    expect(ckpt, "the first test's checkpoint").toBeDefined();
    const b = await makeTarget();
    live.push(b.target);
    await b.target.warmUp!();
    const marks = Object.keys(b.target.restoreMarks!());
    expect(marks).toEqual([]);
    await b.target.restore(ckpt);
    expect(Object.keys(b.target.restoreMarks!())).toEqual(['env', 'disk', 'qemu', 'ram', 'runsFrom', 'cont']);
    const hb = await waitFor(fullAfter(b.hbs, 0), 30_000, 'full heartbeat after a standby restore');
    expect(hb.nonce).toBe(nonce);
    expect(hb.step).toBe(ckpt.step);
    expect(consistent(hb)).toBe(true);
    await b.target.destroy();

    // The guest reads the disk the restore wrote: the same checkpoint with a blank disk image does not verify.
    const blank = new DirCheckpoint(path.join(root, 'ckpt-blank-disk'), 2);
    blank.step = ckpt.step;
    for (const part of ckpt.parts()) {
      const file = path.join(root, `part-${encodeURIComponent(part)}`);
      if (part === 'disk') await createDisk(file, 128);
      else await ckpt.writeFile(part, file);
      await blank.putFile(part, file);
    }
    const c = await makeTarget();
    live.push(c.target);
    await c.target.warmUp!();
    await c.target.restore(blank);
    const seen = await waitFor(fullAfter(c.hbs, 0), 20_000, 'full heartbeat').catch(() => undefined);
    expect(seen === undefined || !consistent(seen)).toBe(true);
    await c.target.destroy();
  });

  it('ramSave paused (held between steps, and at any instant), and live with pre-copy cut short: each pause is measured from QEMU stopping the guest and each restore is consistent', async () => {
    for (const [name, options] of [
      ['paused', { disk: false, ramSave: 'paused' }],
      // the default: no hold, the stop lands at any instant (mid-step too); the step is the last heartbeat received
      ['any instant', { disk: false, ramSave: 'paused', exactStep: false }],
      ['cut short', { disk: false, ramSave: 'live', precopyMaxMs: 1 }], // we stop the guest; QEMU finishes paused
    ] as const) {
      const a = await makeTarget(options);
      live.push(a.target);
      await a.target.boot();
      const first = a.hbs.find((h) => h.full)!;
      await waitFor(reached(a.hbs, 10), 30_000, 'step 10');
      const c = new DirCheckpoint(path.join(root, `save-${name.replace(' ', '-')}`), 1);
      const res = await a.target.checkpoint(c, { skewMs: 0 });
      expect(res.meta.ramSave, name).toBe(options.ramSave);
      expect(res.pauseMs, name).toBeGreaterThan(0);
      expect(res.meta.stepExact, name).toBe(name === 'paused' ? 1 : 0); // else the last heartbeat, a lower bound
      await waitFor(reached(a.hbs, res.step + 5), 30_000, 'work after the checkpoint');
      process.kill(qemuPid(a.target), 'SIGKILL');
      const seen = a.hbs.at(-1)!.step;
      await a.target.destroy();
      await expectConsistentResume(options, c, first.nonce, res.step, name === 'paused', seen);
    }
  });

  it('ramIngest inline: the migration stream goes into the real store as QEMU writes it, page-split; restore is consistent', async () => {
    const a = await makeTarget({ disk: false, ramIngest: 'inline' });
    live.push(a.target);
    await a.target.boot();
    const first = a.hbs.find((h) => h.full)!;
    await waitFor(reached(a.hbs, 10), 30_000, 'step 10');
    const store = Store.open(path.join(root, 'inline-store'));
    const w = store.begin(0);
    const res = await a.target.checkpoint(w, { skewMs: 0 });
    w.step = res.step;
    const m = w.commit(res.meta);
    expect(res.meta.ramIngest).toBe('inline');
    expect(res.meta.stepExact).toBe(1); // the held step, not the last heartbeat received (issue 16: up to 6 behind)
    expect(existsSync(path.join(a.workDir, 'ckpt-1.ram'))).toBe(false); // no scratch file in this mode
    const ram = m.parts.find((p) => p.name === 'ram')!;
    expect(ram.size).toBe(res.meta.ramStreamBytes);
    expect(ram.layout).toMatchObject({ kind: 'qemu-pages', fallback: null });
    expect(ram.layout!.pages + ram.layout!.zeroPages).toBeGreaterThanOrEqual((256 * 2 ** 20) / 4096);
    process.kill(qemuPid(a.target), 'SIGKILL');
    await a.target.destroy();
    await expectConsistentResume({ disk: false, ramIngest: 'inline' }, store.reader(m), first.nonce, res.step);
    store.close();
  });

  it('ramCapture memfd: page-aligned RAM image + device state, SIGKILL, restore, consistent', async () => {
    const a = await makeTarget({ ramCapture: 'memfd' });
    live.push(a.target);
    await a.target.boot();
    const first = a.hbs.find((h) => h.full)!;
    await waitFor(reached(a.hbs, 10), 30_000, 'step 10');
    const c = new DirCheckpoint(path.join(root, 'memfd'), 1);
    const res = await a.target.checkpoint(c, { skewMs: 0 });
    expect(c.parts()).toEqual(['microvm.json', 'ram', 'devstate', 'disk']);
    expect(res.meta.ramStreamBytes).toBe(256 * 2 ** 20);
    expect(Number(res.meta.deviceStateBytes)).toBeLessThan(2 ** 20);
    await waitFor(reached(a.hbs, res.step + 10), 30_000, 'work after checkpoint');
    process.kill(qemuPid(a.target), 'SIGKILL');
    await a.target.destroy();
    const wrongShape = await makeTarget();
    await expect(wrongShape.target.restore(c)).rejects.toThrow(/ramCapture=memfd[\s\S]*ramCapture=stream/);
    await expectConsistentResume({ ramCapture: 'memfd' }, c, first.nonce, res.step);
  });

  it('rejects invalid target options with every field path', () => {
    expect(() =>
      createMicrovmTarget({ workDir: root, sessionDir: root, stepMs: 5, options: { memoryMiB: 1, accel: 'hvf' } }),
    ).toThrow(/targetOptions\.memoryMiB[\s\S]*targetOptions\.accel/);
  });
});
