// The hot local copy on a real QEMU (TCG): two checkpoints into the real store keep only the newest's RAM stream and
// disk beside the session; a restore reads them once they hash to the store's part digests (and says so); a copy with
// one byte flipped is hashed while QEMU loads it, refused before the guest runs, and that QEMU is discarded for a new
// one loaded from the store; negative controls: with the test-only switch that skips the check, the older checkpoint's
// copy under the newest's name resumes behind it, and the checker sees it; with the switch that lets `cont` go before
// the overlapped digest, the older copy padded to the newest's size (so only the digest can refuse it) runs, and the
// checker sees it too: the wait for the digest is what stops it.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { checkResume } from '../../../harness/check/checker.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import type { Manifest } from '../../../harness/store/manifest.js';
import { Store } from '../../../harness/store/store.js';
import { HOT_COPY_UNCHECKED, hotCopyDir } from '../../../harness/targets/microvm/hot-copy.js';
import { HOT_COPY_CONT_EARLY } from '../../../harness/targets/microvm/restore-ram.js';
import type { Target } from '../../../harness/targets/target.js';
import { hasQemu } from '../../helpers/qemu.js';
import { microvmTargets, waitFor } from '../../helpers/microvm.js';

const model = new WorkloadModel();
const OPTIONS = { accel: 'tcg', hotCopy: true };
let root = '';

const makeTarget = microvmTargets(() => root, OPTIONS);

const reached = (hbs: Heartbeat[], step: number) => () => ((hbs.at(-1)?.step ?? -1) >= step ? true : undefined);
const firstFull = (hbs: Heartbeat[]) => () => hbs.find((h) => h.full);
const qemuPid = (t: Target): number => (t as unknown as { qemuPid: number }).qemuPid;

describe.skipIf(!hasQemu())('microvm hot local copy (real QEMU, TCG)', () => {
  let store: Store;
  const manifests: Manifest[] = [];
  let nonce = '';
  const hot = (): string => hotCopyDir(path.join(root, 'session'));
  const newestCopy = (part: string): string => path.join(hot(), String(manifests[1]!.seq).padStart(10, '0'), part);

  /** Restore the newest checkpoint into a new target; its first full heartbeat, the checker's verdict, its source. */
  async function restoreNewest(): Promise<{
    hb: Heartbeat;
    violations: string[];
    source: string | undefined;
    marks: string[];
  }> {
    const b = await makeTarget();
    try {
      const m = manifests[1]!;
      await b.target.restore(store.reader(m));
      const hb = await waitFor(firstFull(b.hbs), 60_000, 'full heartbeat after restore');
      const obs = { heartbeat: hb, restored: { seq: m.seq, step: m.step }, killStep: m.step + 50, nonce };
      const violations = checkResume({ ...obs, latestCompleteSeq: m.seq }, model).map((v) => v.code);
      const marks = Object.keys(b.target.restoreMarks?.() ?? {});
      return { hb, violations, source: b.target.restoreSource?.(), marks };
    } finally {
      await b.target.destroy();
    }
  }

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mv-hot-'));
    store = Store.open(path.join(root, 'store'));
    const a = await makeTarget();
    try {
      await a.target.boot();
      nonce = a.hbs.find((h) => h.full)!.nonce;
      for (const atStep of [10, 60]) {
        await waitFor(reached(a.hbs, atStep), 60_000, `step ${atStep}`);
        const w = store.begin(0);
        const res = await a.target.checkpoint(w, { skewMs: 0 });
        w.step = res.step;
        const m = w.commit(res.meta);
        await a.target.committed!(m.seq);
        manifests.push(m);
      }
      process.kill(qemuPid(a.target), 'SIGKILL');
    } finally {
      await a.target.destroy();
    }
  }, 240_000);
  afterAll(async () => {
    store.close();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps only the newest committed checkpoint, named by its seq, with no pending copy left', async () => {
    expect(manifests[1]!.step).toBeGreaterThan(manifests[0]!.step);
    expect(await readdir(hot())).toEqual([String(manifests[1]!.seq).padStart(10, '0')]);
    expect((await readdir(path.dirname(newestCopy('ram')))).sort()).toEqual(['disk', 'ram']);
  });

  it("a restore reads the verified hot copy, says so, resumes at the checkpoint, and sweeps dead hosts' pending copies", async () => {
    await mkdir(path.join(hot(), 'pending-1'));
    await writeFile(path.join(hot(), 'pending-1', 'ram'), 'a host killed before its commit');
    const { hb, violations, source } = await restoreNewest();
    expect(await readdir(hot())).toEqual([String(manifests[1]!.seq).padStart(10, '0')]);
    expect(source).toBe('hot');
    expect(violations).toEqual([]);
    // at the checkpoint or past it (a loaded host reads the pause's last heartbeat late); not ahead of the kill: checker
    expect(hb.step).toBeGreaterThanOrEqual(manifests[1]!.step);
  }, 120_000);

  it('a hot copy with one byte flipped is loaded, refused before cont, its QEMU discarded: the store resumes it', async () => {
    const file = newestCopy('ram');
    const good = await readFile(file);
    const bad = Buffer.from(good);
    bad[Math.floor(bad.length / 2)]! ^= 0x01;
    await writeFile(file, bad);
    try {
      const { violations, source, marks } = await restoreNewest();
      expect(source).toBe('hot+store (ram: digest mismatch)');
      expect(marks).toEqual(expect.arrayContaining(['hotRamRefused', 'ram', 'cont'])); // the discard-and-reload path
      expect(violations).toEqual([]);
    } finally {
      await writeFile(file, good);
    }
  }, 120_000);

  it("negative control: the older checkpoint's copy under the newest's name is refused, and with the check skipped the checker catches it", async () => {
    const older = store.reader(manifests[0]!);
    for (const part of ['ram', 'disk']) await older.writeFile(part, newestCopy(part));
    const refused = await restoreNewest();
    expect(refused.source).toMatch(
      /^store \(ram: (size differs|digest mismatch); disk: (size differs|digest mismatch)\)$/,
    );
    expect(refused.violations).toEqual([]);
    process.env[HOT_COPY_UNCHECKED] = '1';
    try {
      const unchecked = await restoreNewest();
      expect(unchecked.source).toBe('hot');
      expect(unchecked.hb.step).toBeLessThan(manifests[1]!.step); // the guest resumed at the older checkpoint
      expect(unchecked.violations).toContain('regressed'); // behind the checkpoint it claims
    } finally {
      Reflect.deleteProperty(process.env, HOT_COPY_UNCHECKED);
    }
  }, 180_000);

  it("negative control for the overlap: a same-size stale copy runs only if `cont` skips the digest's verdict", async () => {
    const file = newestCopy('ram');
    const newest = store.reader(manifests[1]!);
    await newest.writeFile('disk', newestCopy('disk')); // the test before left the older copies here
    const good = await newest.get('ram');
    const older = await store.reader(manifests[0]!).get('ram');
    expect(older.length).toBeLessThan(good.length); // the older guest had less in its page cache: padded, same size
    // QEMU stops reading at the stream's end marker: the padding after it is never loaded
    await writeFile(file, Buffer.concat([older, Buffer.alloc(good.length - older.length)]));
    try {
      const gated = await restoreNewest();
      expect(gated.source).toBe('hot+store (ram: digest mismatch)');
      expect(gated.violations).toEqual([]);
      process.env[HOT_COPY_CONT_EARLY] = '1';
      const early = await restoreNewest();
      expect(early.source).toBe('hot');
      expect(early.hb.step).toBeLessThan(manifests[1]!.step); // the guest ran the older checkpoint's RAM
      expect(early.violations.length).toBeGreaterThan(0);
    } finally {
      Reflect.deleteProperty(process.env, HOT_COPY_CONT_EARLY);
      await writeFile(file, good);
    }
  }, 180_000);
});
