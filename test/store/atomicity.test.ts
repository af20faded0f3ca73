// Store commit atomicity under SIGKILL: a child writer commits deterministic checkpoints in a loop and is killed 20
// times, each kill timed from a line the writer printed (never from a sleep): 8 stop the writer dead at a named point of
// a write (before base, before fresh, after the pack's first flush, before meta, before the commit), 8 race a running
// writer from a seeded point on, 4 land during start-up. After every kill the newest checkpoint must be complete and
// byte-identical, not older than the last one the writer reported committed, and a torn checkpoint never visible.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { writeFileAtomic } from '../../harness/core/durable.js';
import { manifestFileName, type Manifest } from '../../harness/store/manifest.js';
import { jsonSeal } from '../../harness/store/sealed-file.js';
import { Store } from '../../harness/store/store.js';
import { storeStats, verifyStore } from '../../harness/store/check/verify.js';
import { rng } from '../helpers/rng.js';
import { BASE_BYTES, expectedDigests, FRESH_BYTES, stepOf } from '../fixtures/store-content.mjs';
import { fixturePath } from '../helpers/paths.js';

const writerScript = fixturePath('store-writer.mjs');
const KILLS = 20;
const SEED = 20_261_201;
/** "fresh" arrives in this many pieces (65,537 bytes each); the pack's first 1 MiB flush happens before piece 20. */
const FRESH_PIECES = Math.ceil(FRESH_BYTES / 65_537);

/** Points of one write where a writer is stopped dead before its kill; "piece fresh 20" leaves a flushed, unsealed pack. */
const HOLD_POINTS = ['begin', 'stored base', 'piece fresh 20', 'stored fresh', 'stored meta'] as const;

/** The line (without its time) the writer prints at `point` of writing checkpoint `seq`. */
function lineAt(point: string, seq: number): string {
  const [verb, ...rest] = point.split(' ');
  return [verb, seq, ...rest].join(' ');
}

/** Where a kill is timed from: null (at spawn, during start-up) or a line; `hold`: the writer stops dead there. */
interface KillPoint {
  line: string | null;
  hold: boolean;
}

/** Kill k's kind: every fifth at start-up, the rest alternately held at a point and racing a running writer. */
const kindOf = (k: number): 'start-up' | 'held' | 'racing' =>
  k % 5 === 4 ? 'start-up' : k % 2 === 0 ? 'held' : 'racing';

/**
 * The point of a kill of `kind` (held kills numbered by `held`), `next` being the seq the writer will begin with:
 * held kills take each point in turn, every other one after a whole checkpoint committed first; racing ones a seeded one.
 */
function killPoint(kind: ReturnType<typeof kindOf>, held: number, next: number, random: () => number): KillPoint {
  if (kind === 'start-up') return { line: null, hold: false };
  if (kind === 'held') return { line: lineAt(HOLD_POINTS[held % HOLD_POINTS.length]!, next + (held % 2)), hold: true };
  const piece = `piece fresh ${1 + Math.floor(random() * FRESH_PIECES)}`;
  const point = ['begin', 'stored base', piece, 'stored fresh', 'stored meta', 'committed'][Math.floor(random() * 6)]!;
  return { line: lineAt(point, next + (random() < 0.5 ? 0 : 1)), hold: false };
}

interface WriterLines {
  begun: number[];
  committed: number[];
}

function parseLines(text: string): WriterLines {
  const out: WriterLines = { begun: [], committed: [] };
  for (const line of text.split('\n')) {
    const m = /^(begin|committed) (\d+) [\d.]+$/.exec(line);
    if (m) (m[1] === 'begin' ? out.begun : out.committed).push(Number(m[2]));
  }
  return out;
}

const writerOptions = { buffer: false, reject: false, stdin: 'ignore', stderr: 'pipe', timeout: 60_000 } as const;

/** Start the writer on `dir` and SIGKILL it at `at`: at once, or as soon as it prints that line. */
function killWriter(dir: string, at: KillPoint) {
  const args = at.hold && at.line !== null ? [dir, '-', at.line] : [dir];
  const child = execaNode(writerScript, args, writerOptions);
  let text = '';
  let done = 0; // length of `text` already searched for the line
  if (at.line === null) child.kill('SIGKILL');
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    text += d;
    const end = text.lastIndexOf('\n') + 1;
    const seen = text
      .slice(done, end)
      .split('\n')
      .some((l) => l.slice(0, l.lastIndexOf(' ')) === at.line);
    done = end;
    if (seen) child.kill('SIGKILL');
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    text += `stderr: ${d}`;
  });
  return { child, output: () => text };
}

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
/** Packs whose data was flushed but whose index was never written (a kill between a flush and the seal). */
const tornPacks = (dir: string): string[] => {
  const packs = readdirSync(path.join(dir, 'packs'));
  return packs.filter((f) => f.endsWith('.pack') && !packs.includes(f.replace(/\.pack$/, '.idx')));
};

describe('store commit atomicity under SIGKILL', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'soak-atomicity-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('the writer commits N checkpoints and exits when given a count', async () => {
    const own = mkdtempSync(path.join(os.tmpdir(), 'soak-atomicity-count-'));
    try {
      const r = await execaNode(writerScript, [own, '2'], { reject: false, stdin: 'ignore', timeout: 60_000 });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(parseLines(r.stdout)).toEqual({ begun: [1, 2], committed: [1, 2] });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it(`${KILLS} kills timed from the writer's progress never expose a torn or stale checkpoint`, async () => {
    const random = rng(SEED);
    let maxCommitted = 0;
    let midWrite = 0;
    let committedUnprinted = 0;
    const seen: string[] = [];
    let held = 0;
    for (let k = 0; k < KILLS; k++) {
      const at = killPoint(kindOf(k), held, maxCommitted + 1, random);
      if (at.hold) held++;
      const w = killWriter(dir, at);
      const result = await w.child;
      const lines = parseLines(w.output());
      const said = `kill ${k} at ${at.line ?? 'start-up'}${at.hold ? ' (held)' : ''}:\n${w.output()}`;
      expect(result.signal, `${said}\nthe writer must die by our SIGKILL, not on its own`).toBe('SIGKILL');
      expect(w.output(), said).not.toContain('stderr:');

      const lastBegun = lines.begun.at(-1) ?? null;
      const tornSeq = lastBegun !== null && !lines.committed.includes(lastBegun) ? lastBegun : null;
      if (tornSeq !== null) midWrite++;
      maxCommitted = Math.max(maxCommitted, ...lines.committed);
      if (at.hold) {
        // Stopped dead before the commit of the seq named in its line: that seq is torn, the one before it is latest.
        expect(tornSeq, said).toBe(Number(at.line!.split(' ')[1]));
        if (at.line!.startsWith('piece ')) expect(tornPacks(dir).length, said).toBeGreaterThanOrEqual(1);
      }

      const store = Store.open(dir);
      try {
        const latest = store.latest();
        const listed = store.list().map((m) => m.seq);
        if (maxCommitted > 0) expect(latest, said).not.toBeNull();
        if (at.hold) expect(latest?.seq ?? 0, said).toBe(tornSeq! - 1);
        if (latest === null) {
          expect(listed).toEqual([]);
          seen.push(`${k}:${tornSeq === null ? 'between' : 'mid'}:none`);
          continue;
        }
        // Never behind what the writer reported; ahead only by the write in flight whose commit finished unprinted.
        expect(latest.seq, said).toBeGreaterThanOrEqual(maxCommitted);
        if (latest.seq > maxCommitted) {
          expect(latest.seq, said).toBe(tornSeq);
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
        expect(verifyStore(store).problems, said).toEqual([]);
        maxCommitted = Math.max(maxCommitted, latest.seq);
        seen.push(`${k}:${tornSeq === null ? 'between' : 'mid'}:${latest.seq}`);
      } finally {
        store.close();
      }
    }

    expect(held).toBe(8);
    // The 8 held kills alone make these true whatever the machine's load; the racing ones add arbitrary points.
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
    expect(tornPacks(dir).length, seen.join(' ')).toBeGreaterThanOrEqual(1);
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
      const rest: Omit<Manifest, 'check'> & Partial<Pick<Manifest, 'check'>> = { ...body };
      delete rest.check;
      delete rest.chunkList;
      writeFileAtomic(
        path.join(own, 'checkpoints', manifestFileName(2)),
        JSON.stringify({ ...rest, check: jsonSeal(rest) }),
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
