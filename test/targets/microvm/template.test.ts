// Real QEMU template snapshots: fresh sessions restored from one template get new, distinct nonces and verify at step
// 0; a checkpoint of one resumes with its nonce; the test-only skip of the re-identify keeps the template's nonce.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFreshBoot } from '../../../harness/check/fresh-boot.js';
import { checkResume } from '../../../harness/check/checker.js';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import { Store } from '../../../harness/store/store.js';
import { catUri, TEMPLATE_SKIPS_IDENTITY } from '../../../harness/targets/microvm/template-boot.js';
import type { Target } from '../../../harness/targets/target.js';
import { microvmTargets, waitFor } from '../../helpers/microvm.js';
import { hasQemu } from '../../helpers/qemu.js';

const model = new WorkloadModel();
const options = { accel: 'tcg', fresh: 'template', disk: true, diskMiB: 64 };
let root = '';
const makeTarget = microvmTargets(() => root, options);

/** Boot a template session; its first full heartbeat, and the boot's duration in ms. */
async function bootOne(live: Target[]): Promise<{ t: Target; hbs: Heartbeat[]; first: Heartbeat; ms: number }> {
  const { target, hbs } = await makeTarget();
  live.push(target);
  const started = process.hrtime.bigint();
  await target.boot();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  return { t: target, hbs, first: hbs.find((h) => h.full)!, ms };
}

describe('catUri', () => {
  it('quotes the file for the shell QEMU runs exec: URIs with', () => {
    expect(catUri('/a/b c/ram.stream')).toBe("exec:cat '/a/b c/ram.stream'");
    expect(catUri("/x/it's")).toBe("exec:cat '/x/it'\\''s'");
  });
});

describe.skipIf(!hasQemu())('microvm fresh sessions from a template snapshot (real QEMU, TCG)', () => {
  const live: Target[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mvtpl-'));
  });
  afterAll(async () => {
    process.env[TEMPLATE_SKIPS_IDENTITY] = '0';
    for (const t of live) await t.destroy().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  it('two sessions from one template: new distinct nonces, verified at step 0; a checkpoint resumes with its nonce', async () => {
    await bootOne(live).then((s) => s.t.destroy()); // builds the template if this image has none yet
    const a = await bootOne(live);
    const b = await bootOne(live);
    for (const s of [a, b]) {
      expect(s.first.step).toBe(0);
      expect(checkFreshBoot(s.first, model)).toEqual([]);
      expect(s.t.describe()).toMatchObject({ freshStart: 'template' });
    }
    expect(a.first.nonce).not.toBe(b.first.nonce);
    console.log(`template boot: ${a.ms.toFixed(0)} ms, ${b.ms.toFixed(0)} ms`);
    await a.t.destroy();

    // b works, checkpoints into a real store, dies; a new target restores it: same nonce, consistent.
    await waitFor(() => ((b.hbs.at(-1)?.step ?? 0) >= 20 ? true : undefined), 30_000, 'b at step 20');
    const store = Store.open(path.join(root, 'store'), { purpose: 'test' });
    const w = store.begin(0);
    const res = await b.t.checkpoint(w, { skewMs: 0 });
    w.step = res.step;
    const m = w.commit(res.meta);
    const killStep = b.hbs.at(-1)!.step;
    await b.t.destroy();
    const c = await makeTarget();
    live.push(c.target);
    await c.target.restore(store.reader(m));
    const hb = await waitFor(() => c.hbs.find((h) => h.full), 30_000, 'full heartbeat after restore');
    const obs = { restored: { seq: m.seq, step: m.step }, killStep, nonce: b.first.nonce, latestCompleteSeq: m.seq };
    expect(checkResume({ ...obs, heartbeat: hb }, model)).toEqual([]);
    await c.target.destroy();
    store.close();
  }, 240_000);

  it("a warm standby's QEMU (-incoming defer, on a copy of the template's disk) starts a template session; its checkpoint resumes", async () => {
    const { target, hbs } = await makeTarget();
    live.push(target);
    await target.warmUp!();
    const started = process.hrtime.bigint();
    await target.boot();
    console.log(
      `template boot into a waiting QEMU: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(0)} ms`,
    );
    const first = hbs.find((h) => h.full)!;
    expect(first.step).toBe(0);
    expect(checkFreshBoot(first, model)).toEqual([]);
    // the template's disk was written over the placeholder: the session's log survives a checkpoint and restore
    await waitFor(() => ((hbs.at(-1)?.step ?? 0) >= 20 ? true : undefined), 30_000, 'step 20');
    const store = Store.open(path.join(root, 'store-warm'), { purpose: 'test' });
    const w = store.begin(0);
    const res = await target.checkpoint(w, { skewMs: 0 });
    w.step = res.step;
    const m = w.commit(res.meta);
    const killStep = hbs.at(-1)!.step;
    await target.destroy();
    const c = await makeTarget();
    live.push(c.target);
    await c.target.restore(store.reader(m));
    const hb = await waitFor(() => c.hbs.find((h) => h.full), 30_000, 'full heartbeat after restore');
    const obs = { restored: { seq: m.seq, step: m.step }, killStep, nonce: first.nonce, latestCompleteSeq: m.seq };
    expect(checkResume({ ...obs, heartbeat: hb }, model)).toEqual([]);
    await c.target.destroy();
    store.close();
  }, 240_000);

  it('negative control: sessions that skip the re-identify keep the template nonce (two sessions, one nonce)', async () => {
    process.env[TEMPLATE_SKIPS_IDENTITY] = '1';
    try {
      const a = await bootOne(live);
      await a.t.destroy();
      const b = await bootOne(live);
      await b.t.destroy();
      expect(checkFreshBoot(a.first, model)).toEqual([]); // each looks like a healthy fresh boot on its own
      expect(a.first.nonce).toBe(b.first.nonce);
    } finally {
      process.env[TEMPLATE_SKIPS_IDENTITY] = '0';
    }
  }, 240_000);
});
