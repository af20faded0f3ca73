// Store commit atomicity under SIGKILL: a child writer commits deterministic checkpoints in a loop and is killed at
// ~20 seeded random moments, most of them mid-write. After every kill the newest checkpoint must be complete and
// byte-identical, not older than the last one the writer reported committed, and a torn checkpoint never visible.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../../harness/core/durable.js';
import { manifestCheck, manifestFileName } from '../../harness/store/manifest.js';
import { Store } from '../../harness/store/store.js';
import { storeStats, verifyStore } from '../../harness/store/verify.js';
import { rng } from '../helpers/rng.js';
import { BASE_BYTES, expectedDigests, FRESH_BYTES, stepOf } from '../fixtures/store-content.mjs';
import { fixturePath } from '../helpers/paths.js';

const writerScript = fixturePath('store-writer.mjs');
const KILLS = 20;
const SEED = 20_261_201;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

interface WriterLines {
  begun: number[];
  committed: number[];
  /** ms (writer clock) of each begin and commit, for calibration. */
  times: Map<string, number>;
}

function parseLines(text: string): WriterLines {
  const out: WriterLines = { begun: [], committed: [], times: new Map() };
  for (const line of text.split('\n')) {
    const m = /^(begin|committed) (\d+) ([\d.]+)$/.exec(line);
    if (!m) continue;
    (m[1] === 'begin' ? out.begun : out.committed).push(Number(m[2]));
    out.times.set(`${m[1]} ${m[2]}`, Number(m[3]));
  }
  return out;
}

const writerOptions = { buffer: false, reject: false, stdin: 'ignore', stderr: 'pipe', timeout: 60_000 } as const;

/** Start the writer on `dir`; `firstBegin` resolves when it prints its first "begin". */
function startWriter(
  dir: string,
  count?: number,
): { child: ResultPromise<typeof writerOptions>; output: () => string; firstBegin: Promise<void> } {
  const child = execaNode(writerScript, count === undefined ? [dir] : [dir, String(count)], writerOptions);
  let text = '';
  let resolveBegin: () => void = () => {};
  const firstBegin = new Promise<void>((r) => (resolveBegin = r));
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    text += d;
    if (text.includes('begin ')) resolveBegin();
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => {
    text += `stderr: ${d}`;
  });
  return { child, output: () => text, firstBegin };
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

describe('store commit atomicity under SIGKILL', () => {
  let dir: string;
  let calibrationDir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'soak-atomicity-'));
    calibrationDir = mkdtempSync(path.join(os.tmpdir(), 'soak-atomicity-cal-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(calibrationDir, { recursive: true, force: true });
  });

  it(`${KILLS} kills at seeded random moments never expose a torn or stale checkpoint`, async () => {
    // Calibrate: how long does one checkpoint write take on this machine?
    const cal = startWriter(calibrationDir, 4);
    const calResult = await cal.child;
    expect(calResult.exitCode, cal.output()).toBe(0);
    const calLines = parseLines(cal.output());
    expect(calLines.committed).toEqual([1, 2, 3, 4]);
    const durations = calLines.committed
      .map((s) => calLines.times.get(`committed ${s}`)! - calLines.times.get(`begin ${s}`)!)
      .sort((a, b) => a - b);
    const writeMs = Math.min(Math.max(durations[1]!, 5), 500);

    const random = rng(SEED);
    let maxCommitted = 0;
    let midWrite = 0;
    let committedUnprinted = 0;
    const seen: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      const w = startWriter(dir);
      // Every fifth kill is timed from the spawn (it may land during start-up); the rest from the first "begin",
      // up to four write-times later, so most land inside a write and some between writes.
      if (k % 5 === 4) await sleep(random() * 150);
      else {
        await Promise.race([w.firstBegin, w.child]);
        await sleep(random() * 4 * writeMs);
      }
      w.child.kill('SIGKILL');
      const result = await w.child;
      const lines = parseLines(w.output());
      expect(result.signal, `kill ${k}: the writer must die by our SIGKILL, not on its own:\n${w.output()}`).toBe(
        'SIGKILL',
      );
      expect(w.output()).not.toContain('stderr:');

      const lastBegun = lines.begun.at(-1) ?? null;
      const tornSeq = lastBegun !== null && !lines.committed.includes(lastBegun) ? lastBegun : null;
      if (tornSeq !== null) midWrite++;
      maxCommitted = Math.max(maxCommitted, ...lines.committed);

      const store = Store.open(dir);
      try {
        const latest = store.latest();
        const listed = store.list().map((m) => m.seq);
        if (maxCommitted > 0) expect(latest, `kill ${k}`).not.toBeNull();
        if (latest === null) {
          expect(listed).toEqual([]);
          seen.push(`${k}:${tornSeq === null ? 'between' : 'mid'}:none`);
          continue;
        }
        // Never behind what the writer reported; ahead only by the write in flight whose commit finished unprinted.
        expect(latest.seq, `kill ${k}`).toBeGreaterThanOrEqual(maxCommitted);
        if (latest.seq > maxCommitted) {
          expect(latest.seq).toBe(tornSeq);
          committedUnprinted++;
        }
        // Seqs are contiguous (a torn seq is reused by the next writer) and the newest listed one is the latest.
        expect(listed).toEqual(Array.from({ length: latest.seq }, (_, i) => i + 1));
        if (tornSeq !== null && latest.seq < tornSeq) expect(listed).not.toContain(tornSeq);
        // Every part byte-identical to the deterministic content of its seq.
        const reader = store.reader(latest);
        expect(reader.parts()).toEqual(['base', 'fresh', 'meta']);
        expect(latest.step).toBe(stepOf(latest.seq));
        const want = expectedDigests(latest.seq);
        for (const part of reader.parts())
          expect(sha(await reader.get(part)), `kill ${k}: seq ${latest.seq} part ${part}`).toBe(want[part]);
        expect(verifyStore(store).problems, `kill ${k}`).toEqual([]);
        maxCommitted = Math.max(maxCommitted, latest.seq);
        seen.push(`${k}:${tornSeq === null ? 'between' : 'mid'}:${latest.seq}`);
      } finally {
        store.close();
      }
    }

    // Most kills must have landed inside a write, or the test proved little.
    expect(midWrite, seen.join(' ')).toBeGreaterThanOrEqual(8);
    expect(maxCommitted, seen.join(' ')).toBeGreaterThanOrEqual(4);
    expect(committedUnprinted).toBeLessThanOrEqual(midWrite);

    // Dedup happened: "base" is shared, so each later checkpoint stores at most "fresh", "meta", its patch block and
    // the unpatched block its predecessor's patch covered.
    const store = Store.open(dir);
    const stats = storeStats(store);
    const chunksPer = BASE_BYTES / 4096 + Math.ceil(FRESH_BYTES / 4096) + 1;
    for (const m of store.list()) expect(m.chunks).toBe(chunksPer);
    for (const m of store.list().slice(1)) expect(m.newChunks).toBeLessThanOrEqual(Math.ceil(FRESH_BYTES / 4096) + 3);
    expect(stats.ratio!).toBeGreaterThan(1.5); // >= 4 checkpoints of 3.6 MB sharing 2 MiB each
    store.close();
    // Torn packs (data flushed, no index) were left behind by kills during "fresh": they exist and were ignored above.
    const packs = readdirSync(path.join(dir, 'packs'));
    const torn = packs.filter((f) => f.endsWith('.pack') && !packs.includes(f.replace(/\.pack$/, '.idx')));
    expect(torn.length, seen.join(' ')).toBeGreaterThanOrEqual(1);
  });

  it('negative control: a committed manifest whose chunks are missing is skipped by latest() and reported by verifyStore', async () => {
    // What a wrong commit order (manifest renamed before the pack is sealed) leaves after a kill between the two.
    const own = mkdtempSync(path.join(os.tmpdir(), 'soak-atomicity-neg-'));
    try {
      const store = Store.open(own);
      const w1 = store.begin(stepOf(1));
      await w1.put('meta', Buffer.from('one'));
      const top = w1.commit();
      // Written with its chunk list inline (as manifests before schema 3 were): the list itself is readable.
      const body = { ...top, seq: 2, parts: [{ name: 'ghost', size: 5000, chunks: ['0'.repeat(64)] }] };
      const { check: _c, chunkList: _l, ...rest } = body;
      writeFileAtomic(
        path.join(own, 'checkpoints', manifestFileName(2)),
        JSON.stringify({ ...rest, check: manifestCheck(rest) }),
      );
      store.close();
      const reopened = Store.open(own);
      expect(reopened.list().map((m) => m.seq)).toEqual([1, 2]);
      expect(reopened.latest()!.seq).toBe(1);
      expect(verifyStore(reopened).problems.map((p) => [p.seq, p.part])).toEqual([[2, 'ghost']]);
      reopened.close();
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });
});
