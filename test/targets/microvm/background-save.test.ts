// Real QEMU tests of ramSave: background (QEMU's background-snapshot): the RAM is the guest's as of QEMU's brief pause
// at the start, though the guest runs through the save; each restore is consistent, with and without a disk.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import type { CheckpointSink, CheckpointSource, PartData } from '../../../harness/store/types.js';
import { createMicrovmTarget } from '../../../harness/targets/microvm/target.js';
import type { Target } from '../../../harness/targets/target.js';
import { hasQemu } from '../../helpers/qemu.js';

const qemuPresent = hasQemu();
const model = new WorkloadModel();
let root = '';
let n = 0;

/** TEST DOUBLE for the store: one directory per checkpoint, one file per part. */
class DirCheckpoint implements CheckpointSink, CheckpointSource {
  readonly order: string[] = [];
  readonly seq = 1;
  readonly step = -1;
  constructor(readonly dir: string) {}
  private p(name: string): string {
    return path.join(this.dir, encodeURIComponent(name));
  }
  async put(name: string, data: PartData): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const chunks: Uint8Array[] = [];
    if (data instanceof Uint8Array) chunks.push(data);
    else for await (const c of data) chunks.push(c);
    await writeFile(this.p(name), Buffer.concat(chunks));
    this.order.push(name);
  }
  async putFile(name: string, file: string): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await copyFile(file, this.p(name));
    this.order.push(name);
  }
  parts(): string[] {
    return [...this.order];
  }
  get(name: string): Promise<Buffer> {
    return readFile(this.p(name));
  }
  async *stream(name: string): AsyncIterable<Buffer> {
    for await (const c of createReadStream(this.p(name))) yield c as Buffer;
  }
  async writeFile(name: string, file: string): Promise<void> {
    await copyFile(this.p(name), file);
  }
}

async function makeTarget(options: Record<string, unknown>): Promise<{ target: Target; hbs: Heartbeat[] }> {
  const workDir = path.join(root, `w${++n}`);
  await mkdir(workDir, { mode: 0o700 });
  const target = createMicrovmTarget({
    workDir,
    sessionDir: path.join(root, 'session'),
    stepMs: 5,
    options: { accel: 'tcg', ...options },
  });
  const hbs: Heartbeat[] = [];
  target.onHeartbeat((hb) => hbs.push(hb));
  return { target, hbs };
}

async function waitFor<T>(fn: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

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
