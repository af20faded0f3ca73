// The consolidated chunk index (packs/chunks.cix): lookups through it equal lookups through the pack indexes; a torn,
// bit-flipped or stale one is ignored (the pack indexes are read); negative control: a forged one (checksum made to
// match) that points a chunk at another chunk's bytes is caught by the chunk hash check, the read falls back to the
// pack indexes and returns the right bytes, and `store verify` names it; gc leaves a correct one.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChunkIndex } from '../../../harness/store/index/chunk-index.js';
import { CONSOLIDATE_AFTER_PACKS } from '../../../harness/store/index/consolidate.js';
import {
  CONSOLIDATED_FILE,
  ConsolidatedIndex,
  encodeConsolidated,
} from '../../../harness/store/index/consolidated-index.js';
import { gcStore } from '../../../harness/store/gc.js';
import type { ChunkLocation } from '../../../harness/store/index/pack-index.js';
import { readPackIndex } from '../../../harness/store/index/pack-index.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';
import { fillStore, pagesOf } from '../../helpers/store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-cix-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const packDir = (): string => path.join(dir, 'packs');
const cixFile = (): string => path.join(packDir(), CONSOLIDATED_FILE);
const data = (seq: number): Buffer => pagesOf(seq, 8);
const fill = (n: number): Promise<void> => fillStore(dir, n, data);
const hex = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Every chunk hash any pack index lists. */
function allHashes(): string[] {
  const out = new Set<string>();
  for (const f of readdirSync(packDir()).filter((x) => x.endsWith('.idx')))
    for (const e of readPackIndex(path.join(packDir(), f))?.entries ?? []) out.add(e[0]);
  return [...out];
}

/** A chunk index loaded from the pack folder: through chunks.cix (unless `packIndexesOnly`) and the pack indexes. */
function loaded(packIndexesOnly = false): ChunkIndex {
  const index = new ChunkIndex(packDir());
  index.reload(packIndexesOnly);
  return index;
}

/** Lookups through the consolidated index equal lookups through the pack indexes, for every chunk. */
function expectSameLookups(): void {
  const fast = loaded();
  const truth = loaded(true);
  for (const h of allHashes()) expect(fast.locate(h)).toEqual(truth.locate(h));
}

/** Open the store, read the newest checkpoint back: its seq, whether the bytes are right, whether chunks.cix was used. */
async function restore(): Promise<{ seq: number; ok: boolean; cix: boolean }> {
  const s = Store.open(dir);
  try {
    const m = s.latest()!;
    s.warmPageKeys(m);
    const ok = (await s.reader(m).get('ram')).equals(data(m.seq));
    return { seq: m.seq, ok, cix: s.internals.index.usesConsolidated };
  } finally {
    s.close();
  }
}

/** `store verify`'s problems of the store. */
function verified(part?: string): Array<{ chunk: string; problem: string }> {
  const s = Store.open(dir);
  try {
    return verifyStore(s).problems.filter((p) => part === undefined || p.part === part);
  } finally {
    s.close();
  }
}

describe('consolidated chunk index', () => {
  it('encodes sorted records, finds each chunk (a delta with its base), leaves out a delta whose base it lacks', () => {
    const pack = 'aaaaaaaaaaaaaaaa';
    const whole: ChunkLocation = { pack, offset: 2 ** 40 + 3, length: 9, codec: 0, inner: 0, rawLength: 9 };
    const entries = new Map<string, ChunkLocation>([
      [hex('a'), whole],
      [hex('b'), { pack, offset: 7, length: 500, codec: 2, inner: 4096, rawLength: 4096, base: hex('a') }],
      [hex('c'), { pack, offset: 7, length: 500, codec: 2, inner: 0, rawLength: 12, base: hex('nowhere') }],
      [hex('d'), { ...whole, pack: 'bbbbbbbbbbbbbbbb' }], // a pack it does not cover
    ]);
    const index = ConsolidatedIndex.decode(encodeConsolidated([pack], entries))!;
    expect(index.count).toBe(2);
    expect(index.covers(pack)).toBe(true);
    expect(index.covers('bbbbbbbbbbbbbbbb')).toBe(false);
    expect(index.locate(hex('a'))).toEqual(whole);
    expect(index.locate(hex('b'))).toEqual(entries.get(hex('b')));
    for (const h of [hex('c'), hex('d'), hex('e')]) expect(index.has(h)).toBe(false);
    expect([...index.entries()].map(([h]) => h)).toEqual([hex('a'), hex('b')].sort());
  });

  it('merging new packs into an old index gives the same bytes as encoding everything at once', () => {
    const [p1, p2] = ['1111111111111111', '2222222222222222'];
    const loc = (pack: string, n: number, base?: string): ChunkLocation => ({
      pack,
      ...{ offset: n * 100, length: 90, codec: 2, inner: n, rawLength: 4096 },
      ...(base === undefined ? {} : { base }),
    });
    const first = new Map<string, ChunkLocation>();
    const second = new Map<string, ChunkLocation>();
    for (let n = 0; n < 300; n++) first.set(hex(`a${n}`), loc(p1, n, n % 3 === 1 ? hex(`a${n - 1}`) : undefined));
    for (let n = 0; n < 200; n++) second.set(hex(`b${n}`), loc(p2, n, n % 4 === 1 ? hex(`a${n}`) : undefined));
    second.set(hex('a0'), loc(p2, 999)); // already listed: keeps its old location
    const merged = encodeConsolidated([p2], second, ConsolidatedIndex.decode(encodeConsolidated([p1], first)));
    const union = new Map([...second, ...first]);
    expect(merged.equals(encodeConsolidated([p1, p2], union))).toBe(true);
    const index = ConsolidatedIndex.decode(merged)!;
    expect(index.count).toBe(300 + 200 - 17); // second's 17 deltas on a delta of first (a1, a13, ...) are left out
    for (const [h, l] of union) if (index.has(h)) expect(index.locate(h)).toEqual(l);
    expect(index.locate(hex('a0'))).toEqual(first.get(hex('a0')));
  });

  it('the writer consolidates every so many packs; lookups through it equal lookups through the pack indexes', async () => {
    await fill(CONSOLIDATE_AFTER_PACKS + 4);
    const index = ConsolidatedIndex.decode(readFileSync(cixFile()))!;
    expect(index.packs).toHaveLength(CONSOLIDATE_AFTER_PACKS);
    expectSameLookups();
    const warm = loaded();
    expect(warm.usesConsolidated).toBe(true);
    expect(await restore()).toEqual({ seq: CONSOLIDATE_AFTER_PACKS + 4, ok: true, cix: true });
    expect(verified()).toEqual([]);
  });

  it('a torn, bit-flipped or stale consolidated index is ignored: the pack indexes are read', async () => {
    await fill(CONSOLIDATE_AFTER_PACKS + 2);
    const good = readFileSync(cixFile());
    writeFileSync(cixFile(), good.subarray(0, good.length - 5));
    expect(loaded().usesConsolidated).toBe(false);
    expectSameLookups();
    expect(await restore()).toEqual({ seq: CONSOLIDATE_AFTER_PACKS + 2, ok: true, cix: false });
    const flipped = Buffer.from(good);
    flipped[good.length - 40] = flipped[good.length - 40]! ^ 1;
    writeFileSync(cixFile(), flipped);
    expect(loaded().usesConsolidated).toBe(false);
    // stale: it covers a pack whose index is gone (as after a gc that was not allowed to finish)
    writeFileSync(cixFile(), good);
    expect(loaded().usesConsolidated).toBe(true);
    const covered = ConsolidatedIndex.decode(good)!.packs[0]!;
    rmSync(path.join(packDir(), `${covered}.idx`));
    expect(loaded().usesConsolidated).toBe(false);
    expectSameLookups();
  });

  it('negative control: a forged entry is caught by the chunk hash check, the read falls back, verify names it', async () => {
    await fill(CONSOLIDATE_AFTER_PACKS);
    const index = ConsolidatedIndex.decode(readFileSync(cixFile()))!;
    const entries = new Map(index.entries());
    // Point the newest checkpoint's changed page at the first checkpoint's page (same size, other bytes).
    const s = Store.open(dir);
    const newest = s.latest()!;
    const first = s.list()[0]!;
    s.close();
    const victim = newest.parts[0]!.chunks[CONSOLIDATE_AFTER_PACKS % 16]!;
    const other = first.parts[0]!.chunks[1]!;
    expect(victim).not.toBe(other);
    entries.set(victim, entries.get(other)!);
    writeFileSync(cixFile(), encodeConsolidated(index.packs, entries));
    for (const f of readdirSync(path.join(dir, 'checkpoints')).filter((x) => x.endsWith('.loc')))
      rmSync(path.join(dir, 'checkpoints', f)); // so the read goes through chunks.cix, not a location index
    const forged = Store.open(dir);
    try {
      const m = forged.latest()!;
      expect(forged.locate(victim)).toEqual(entries.get(other)); // the forged entry is in use
      expect((await forged.reader(m).get('ram')).equals(data(m.seq))).toBe(true);
      expect(forged.internals.index.usesConsolidated).toBe(false); // fell back to the pack indexes
      const problems = verifyStore(forged).problems.filter((p) => p.part === '(chunk index)');
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ chunk: victim });
      expect(problems[0]!.problem).toContain(CONSOLIDATED_FILE);
    } finally {
      forged.close();
    }
    // a forged file that is also damaged: verify says so
    writeFileSync(cixFile(), Buffer.from('SOAKCIX'));
    expect(verified('(chunk index)').map((p) => p.problem)).toEqual([expect.stringMatching(/torn or fails its check/)]);
  });

  it('gc leaves a consolidated index of exactly the packs it kept, which new opens use', async () => {
    await fill(CONSOLIDATE_AFTER_PACKS + 3);
    const store = Store.open(dir);
    const report = gcStore(store, 2);
    store.close();
    expect(report.packsRewritten + report.packsDeleted).toBeGreaterThan(0);
    expect(existsSync(cixFile())).toBe(true);
    const index = ConsolidatedIndex.decode(readFileSync(cixFile()))!;
    const idxFiles = readdirSync(packDir()).filter((f) => f.endsWith('.idx'));
    expect([...index.packs].sort()).toEqual(idxFiles.map((f) => f.slice(0, -4)).sort());
    expectSameLookups();
    expect(await restore()).toEqual({ seq: CONSOLIDATE_AFTER_PACKS + 3, ok: true, cix: true });
    expect(verified()).toEqual([]);
  });
});
