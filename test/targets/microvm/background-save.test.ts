// Real QEMU tests of ramSave: background (QEMU's background-snapshot): the RAM is the guest's as of QEMU's brief pause
// at the start, though the guest runs through the save; each restore is consistent, with and without a disk.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import type { Target } from '../../../harness/targets/target.js';
import { hasQemu } from '../../helpers/qemu.js';
import { DirCheckpoint, microvmTargets, waitFor } from '../../helpers/microvm.js';

const qemuPresent = hasQemu();
const model = new WorkloadModel();
let root = '';

const makeTarget = microvmTargets(() => root, { accel: 'tcg' });

/** A full heartbeat of one step whose digests match the recomputed chains. */
function consistent(hb: Heartbeat): boolean {
  const want = model.expected(hb.step);
  return hb.fs?.digest === want.fs && hb.mem?.digest === want.mem && hb.tool?.digest === want.tool;
}

describe.skipIf(!qemuPresent)('microvm ramSave: background (real QEMU, TCG)', () => {
  const live: Target[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mvbg-'));
  });
  afterAll(async () => {
    for (const t of live) await t.destroy().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  for (const disk of [false, true]) {
    it(`disk ${String(disk)}: the guest steps on during the save, and the restore resumes at the pause, not after it`, async () => {
      const options = { disk, ramSave: 'background' };
      const a = await makeTarget(options);
      live.push(a.target);
      await a.target.boot();
      const nonce = a.hbs.find((h) => h.full)!.nonce;
      await waitFor(() => ((a.hbs.at(-1)?.step ?? -1) >= 10 ? true : undefined), 30_000, 'step 10');
      const c = new DirCheckpoint(path.join(root, `save-${String(disk)}`));
      const res = await a.target.checkpoint(c, { skewMs: 0 });
      const stepAfterSave = a.hbs.at(-1)!.step;
      expect(res.meta.ramSave).toBe('background');
      expect(res.pauseMs).toBeGreaterThan(0);
      await a.target.destroy();
      // the guest ran while QEMU wrote RAM (a 256 MiB save takes far longer than one 5 ms step)
      expect(stepAfterSave).toBeGreaterThan(res.step);

      const b = await makeTarget(options);
      live.push(b.target);
      await b.target.restore(c);
      const hb = await waitFor(() => b.hbs.find((h) => h.full), 30_000, 'full heartbeat after restore');
      await b.target.destroy();
      expect(hb.nonce).toBe(nonce);
      expect(consistent(hb)).toBe(true);
      expect(hb.step).toBeGreaterThanOrEqual(res.step); // not behind the checkpoint (its step is a lower bound)
      // RAM as of the pause, not as of the save's end: the guest's later steps are not in it (negative control: a
      // save that copied RAM at the end, as a plain migration of a running guest would, resumes at stepAfterSave)
      expect(hb.step).toBeLessThan(stepAfterSave);
    });
  }
});
