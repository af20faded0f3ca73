// Per-checkpoint location indexes: a restore's open + latest() reads no pack index; a missing or damaged location
// index falls back to the pack indexes (same checkpoint) and is written again; only the newest two are kept; gc
// removes them before it moves chunks and writes the newest again. Negative control: a self-checking location index
// that leads a chunk astray is reported by verify, and a restore through it still reads the right bytes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gcStore } from '../../../harness/store/gc.js';
import { encodeLocations, locationFileName } from '../../../harness/store/index/location-index.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';
import { fillStore, pagesOf } from '../../helpers/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-locidx-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const fill = (n: number): Promise<void> => fillStore(dir, n);
const locFile = (seq: number): string => path.join(dir, 'checkpoints', locationFileName(seq));
const locFiles = (): string[] => readdirSync(path.join(dir, 'checkpoints')).filter((f) => f.endsWith('.loc'));

/** Open, take latest(), read its parts back: the seq, whether every pack index was read, and the bytes are right. */
async function restore(): Promise<{ seq: number | undefined; scanned: boolean; ok: boolean }> {
  const s = Store.open(dir);
  const m = s.latest();
  const ok = m !== null && (await s.reader(m).get('ram')).equals(pagesOf(m.seq));
  const scanned = s.internals.index.isComplete;
  s.close();
  return { seq: m?.seq, scanned, ok };
}

describe('location index', () => {
  it('open + latest() reads no pack index; only the newest two location indexes are kept', async () => {
    await fill(6);
    expect(locFiles()).toEqual([locationFileName(5), locationFileName(6)]);
    expect(await restore()).toEqual({ seq: 6, scanned: false, ok: true });
  });

  it('negative control: without a location index, open reads every pack index, then writes the index again', async () => {
    await fill(3);
    rmSync(locFile(3));
    expect(await restore()).toEqual({ seq: 3, scanned: true, ok: true });
    expect(existsSync(locFile(3))).toBe(true);
    expect(await restore()).toEqual({ seq: 3, scanned: false, ok: true });
  });

  it('a torn or bit-flipped location index falls back to the pack indexes and is written again', async () => {
    await fill(3);
    const good = readFileSync(locFile(3));
    writeFileSync(locFile(3), good.subarray(0, good.length - 7));
    expect(await restore()).toEqual({ seq: 3, scanned: true, ok: true });
    const flipped = Buffer.from(good);
    flipped[40] = flipped[40]! ^ 1;
    writeFileSync(locFile(3), flipped);
    expect(await restore()).toEqual({ seq: 3, scanned: true, ok: true });
    expect(readFileSync(locFile(3)).equals(good)).toBe(true);
  });

  it('a self-checking location index that leads a chunk astray: verify names it; a restore still reads right', async () => {
    await fill(3);
    const s = Store.open(dir);
    const m = s.latest()!;
    const victim = m.parts[0]!.chunks[1]!;
    const other = m.parts[0]!.chunks[0]!;
    const forged = encodeLocations(3, m, (h) => s.locate(h === victim ? other : h))!;
    s.close();
    writeFileSync(locFile(3), forged);
    expect(await restore()).toEqual({ seq: 3, scanned: true, ok: true });
    writeFileSync(locFile(3), forged); // (the restore wrote it again; forge it once more for verify)
    const v = Store.open(dir);
    const problems = verifyStore(v).problems;
    v.close();
    expect(problems.map((p) => [p.seq, p.part, p.chunk])).toEqual([[3, '(location index)', victim]]);
  });

  it('gc removes every location index before it moves chunks, then writes the newest again', async () => {
    await fill(6);
    const s = Store.open(dir);
    gcStore(s, 2);
    expect(verifyStore(s).problems).toEqual([]);
    s.close();
    expect(locFiles()).toEqual([locationFileName(6)]);
    expect(await restore()).toEqual({ seq: 6, scanned: false, ok: true });
  });
});
