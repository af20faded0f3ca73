// End to end, `soak store` (the real CLI) on the shared run's store (test/helpers/cli-runs.ts): verify and stats;
// verify names exactly the checkpoints and parts a flipped stored byte corrupts (a part's chunk, a shared chunk-list
// leaf); gc keeps the newest; a bad --keep and a missing folder are bad input (exit 3).
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../harness/analysis/summary.js';
import { Store } from '../../harness/store/store.js';
import { describeResult, literal, outputLines, soakIn } from '../helpers/cli.js';
import { cliRuns } from '../helpers/cli-runs.js';
import { chunkMap, flipStoredByte } from '../helpers/store.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);
const out = describeResult;
/** "checkpoint <seq> part <part>: <problem>" lines of `soak store verify`, as [seq part, problem]. */
const verifyProblems = (stdout: unknown): Array<[string, string]> =>
  outputLines(stdout).flatMap((l): Array<[string, string]> => {
    const m = /^checkpoint (\d+) part (.+?): (.*)$/.exec(l);
    return m ? [[`${m[1]} ${m[2]}`, m[3]!]] : [];
  });

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-store-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak store', () => {
  let runDir: string;
  let summary: Summary;

  beforeAll(async () => {
    const runs = await cliRuns();
    runDir = runs.runDir;
    summary = JSON.parse(readFileSync(path.join(runs.reportDir, 'summary.json'), 'utf8')) as Summary;
  }, 900_000);

  it('`store verify <run-dir>` exits 0; `store stats --json` shows dedup', async () => {
    const v = await soak('store', 'verify', runDir);
    expect(v.exitCode, out(v)).toBe(0);
    expect(outputLines(v.stdout).at(-1)).toMatch(/^\d+ checkpoints, \d+ chunk references checked: OK$/);
    const s = await soak('store', 'stats', runDir, '--json');
    expect(s.exitCode, out(s)).toBe(0);
    const stats = JSON.parse(s.stdout) as { checkpoints: unknown[]; ratio: number };
    expect(stats.checkpoints.length).toBeGreaterThanOrEqual(summary.dedup.checkpoints);
    expect(stats.ratio).toBeGreaterThan(1);
  });

  it('store verify names exactly the checkpoints and parts whose located chunk a flipped byte corrupts (exit 1)', async () => {
    const copy = path.join(tmp, 'store-copy');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const store = Store.open(copy);
    // The memory chunk whose stored bytes (its block) serve the fewest parts and chunk lists: usually one part of one
    // checkpoint, but deflate may pack it with others, and then every one of them must be named.
    const map = chunkMap(store);
    const users = (h: string): ReturnType<typeof map.usersOf> => map.usersOf(map.damagedWith(h));
    const reach = (h: string): number => users(h).parts.size + users(h).lists.size;
    const memory = store
      .list()
      .flatMap((m) => (m.parts.find((p) => p.name === 'memory')?.chunks ?? []).map((hash) => ({ seq: m.seq, hash })));
    expect(memory.length, 'the run stored no memory chunk').toBeGreaterThan(0);
    const found = memory.reduce((a, b) => (reach(b.hash) < reach(a.hash) ? b : a), memory[0]!);
    const { parts, lists } = users(found.hash);
    flipStoredByte(store, found.hash);
    store.close();
    const r = await soak('store', 'verify', copy);
    expect(r.exitCode, out(r)).toBe(1);
    const problems = verifyProblems(r.stdout);
    // A checkpoint whose chunk list the block breaks is named once for its list; every other user by its part.
    const want = [
      ...[...parts].filter((p) => !lists.has(Number(p.split(' ')[0]))),
      ...[...lists].map((seq) => `${seq} (chunk list)`),
    ].sort();
    expect([...new Set(problems.map(([w]) => w))].sort(), out(r)).toEqual(want);
    if (!lists.has(found.seq)) expect(want).toContain(`${found.seq} memory`);
    const corrupt = new RegExp(`: chunk [0-9a-f]{64} in pack [0-9a-f]+ at offset \\d+ is corrupt$`);
    for (const [, problem] of problems) expect(problem, out(r)).toMatch(corrupt);
    expect(problems.map(([, p]) => p.match(/chunk ([0-9a-f]{64})/)?.[1])).toContain(found.hash);
    expect(outputLines(r.stdout).at(-1)).toMatch(new RegExp(`: ${problems.length} problems$`));
  });

  it('store verify names every checkpoint sharing a chunk-list leaf whose stored bytes a flipped byte corrupts', async () => {
    const copy = path.join(tmp, 'store-copy-list');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const store = Store.open(copy);
    // The leaf shared by the most checkpoints' chunk lists, and who else its stored bytes (its block) serve.
    const map = chunkMap(store);
    const leaves = store.list().flatMap((m) => (m.listChunks ?? []).slice(m.chunkList?.length ?? 0));
    const users = (h: string): ReturnType<typeof map.usersOf> => map.usersOf(map.damagedWith(h));
    const leaf = leaves.reduce((a, b) => (users(b).lists.size > users(a).lists.size ? b : a), leaves[0]!);
    const { parts, lists } = users(leaf);
    flipStoredByte(store, leaf);
    store.close();
    expect(lists.size).toBeGreaterThanOrEqual(2);
    const r = await soak('store', 'verify', copy);
    expect(r.exitCode, out(r)).toBe(1);
    const problems = verifyProblems(r.stdout);
    // One line per checkpoint whose chunk list it breaks; parts of other checkpoints only where the block held their chunks.
    const want = [...lists].map((seq) => `${seq} (chunk list)`);
    const partsElsewhere = [...parts].filter((p) => !lists.has(Number(p.split(' ')[0])));
    expect(problems.filter(([w]) => w.endsWith(' (chunk list)')).map(([w]) => w)).toEqual(want);
    expect(problems.filter(([w]) => !w.endsWith(' (chunk list)')).every(([w]) => partsElsewhere.includes(w))).toBe(
      true,
    );
    for (const [where, problem] of problems.filter(([w]) => w.endsWith(' (chunk list)')))
      expect(problem).toMatch(
        new RegExp(
          `^checkpoint ${where.split(' ')[0]}'s chunk list cannot be read: store ${literal(copy)}: chunk [0-9a-f]{64} .* is corrupt$`,
        ),
      );
  });

  it('store gc --keep 3 on a copy keeps the newest 3, which verify; --keep 0 is bad input (exit 3)', async () => {
    const copy = path.join(tmp, 'store-gc');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const before = JSON.parse((await soak('store', 'stats', copy, '--json')).stdout) as {
      checkpoints: Array<{ seq: number }>;
    };
    const r = await soak('store', 'gc', copy, '--keep', '3', '--json');
    expect(r.exitCode, out(r)).toBe(0);
    const report = JSON.parse(r.stdout) as {
      kept: number[];
      removed: number[];
      bytesAfter: number;
      bytesBefore: number;
    };
    expect(report.kept).toEqual(before.checkpoints.slice(-3).map((c) => c.seq));
    expect(report.removed).toHaveLength(before.checkpoints.length - 3);
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    const v = await soak('store', 'verify', copy);
    expect(v.exitCode, out(v)).toBe(0);
    expect(outputLines(v.stdout).at(-1)).toMatch(/^3 checkpoints, \d+ chunk references checked: OK$/);
    const bad = await soak('store', 'gc', copy, '--keep', '0');
    expect(bad.exitCode, out(bad)).toBe(3);
    expect(bad.stderr).toMatch(/--keep must be a whole number >= 1/);
  });

  it('store verify on a missing folder: exit 3 naming it', async () => {
    const v = await soak('store', 'verify', '/no/such/dir');
    expect(v.exitCode, out(v)).toBe(3);
    expect(v.stderr).toContain('/no/such/dir does not exist');
  });
});
