// A memfd guest (ramCapture memfd) restored from the real store: the RAM image's checked pages are written straight
// into the new QEMU's memfd at their offsets, zero pages left out (its memfd holds no page yet); the resumed guest is
// consistent at the checkpoint's step. Negative control: a RAM page corrupt in its pack refuses the restore, and the
// guest it was loading never runs (no heartbeat).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';
import { WorkloadModel } from '../../../harness/check/workload.js';
import { IntegrityError } from '../../../harness/core/errors.js';
import { ZERO_PAGE_SHA256 } from '../../../harness/store/sha256.js';
import { Store } from '../../../harness/store/store.js';
import type { Target } from '../../../harness/targets/target.js';
import { microvmTargets, waitFor } from '../../helpers/microvm.js';
import { hasQemu } from '../../helpers/qemu.js';
import { flipStoredByte } from '../../helpers/store.js';

const qemuPresent = hasQemu();
let root = '';
const makeTarget = microvmTargets(() => root, { accel: 'tcg', exactStep: true, disk: false, ramCapture: 'memfd' });
const model = new WorkloadModel();
const reached = (hbs: Heartbeat[], step: number) => () => ((hbs.at(-1)?.step ?? -1) >= step ? true : undefined);

describe.skipIf(!qemuPresent)('memfd guest restored from the store (real QEMU, TCG)', () => {
  const live: Target[] = [];
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'mvt-memfd-'));
  });
  afterAll(async () => {
    for (const t of live) await t.destroy().catch(() => {});
    await rm(root, { recursive: true, force: true });
  });

  it('writes the checked pages into the new memfd, zero pages left out; resumes consistent; a corrupt page refuses it', async () => {
    const a = await makeTarget();
    live.push(a.target);
    await a.target.boot();
    const first = a.hbs.find((h) => h.full)!;
    await waitFor(reached(a.hbs, 10), 30_000, 'step 10');
    const store = Store.open(path.join(root, 'store'));
    const w = store.begin(0);
    const res = await a.target.checkpoint(w, { skewMs: 0 });
    w.step = res.step;
    const m = w.commit(res.meta);
    await waitFor(reached(a.hbs, res.step + 5), 30_000, 'work after the checkpoint');
    await a.target.destroy();

    const b = await makeTarget();
    live.push(b.target);
    const reader = store.reader(m);
    await b.target.restore(reader);
    const hb = await waitFor(() => b.hbs.find((h) => h.full), 30_000, 'full heartbeat after restore');
    const want = model.expected(hb.step);
    expect([hb.nonce, hb.step]).toEqual([first.nonce, res.step]);
    expect([hb.fs?.digest, hb.mem?.digest, hb.tool?.digest]).toEqual([want.fs, want.mem, want.tool]);
    // the image went in at its offsets: most of a fresh guest's 256 MiB are zero pages, none of them read or written
    const ram = m.parts.find((p) => p.name === 'ram')!;
    const zeroPages = ram.chunks.filter((h) => h === ZERO_PAGE_SHA256).length;
    expect(zeroPages).toBeGreaterThan(ram.chunks.length / 4);
    expect(reader.counts.holes).toBe(zeroPages);
    await b.target.destroy();

    // negative control: one non-zero page of the image damaged in its pack, in a block that holds no other part's chunk
    const where = (h: string): string => `${store.locate(h)!.pack} ${store.locate(h)!.offset}`;
    const others = new Set(m.parts.filter((p) => p.name !== 'ram').flatMap((p) => p.chunks.map(where)));
    const victim = ram.chunks.find((h) => h !== ZERO_PAGE_SHA256 && !others.has(where(h)))!;
    flipStoredByte(store, victim, 20);
    const c = await makeTarget();
    live.push(c.target);
    const err = await c.target.restore(store.reader(m)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(IntegrityError);
    expect(String(err)).toContain(store.locate(victim)!.pack);
    await new Promise((r) => setTimeout(r, 2000)); // a guest resumed anyway would have said something by now
    expect(c.hbs).toEqual([]);
    store.close();
  });
});
