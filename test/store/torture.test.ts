// Torture: a writer that commits checkpoints and collects garbage (keep 2) is SIGKILLed at 200 seeded random moments,
// half aimed into a checkpoint write, half into gc. After every kill: the store verifies (every chunk of every listed
// checkpoint present and intact), the latest checkpoint is not older than the last one reported committed, the two
// newest committed checkpoints are still listed, and the latest restores byte-identical to its deterministic content
// (including a page-split migration stream whose changed pages are stored as deltas against older checkpoints' pages).
// Negative control: the same kills against a gc that deletes the packs it drops before the old manifests naming them
// are gone (the order bug gc's step order prevents) are caught by the same checks.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcStore } from '../../harness/store/gc.js';
import { Store } from '../../harness/store/store.js';
import { verifyStore } from '../../harness/store/verify.js';
import { rng } from '../helpers/rng.js';
import { expectedDigests, smallContent, stepOf } from '../fixtures/store-content.mjs';
import { fixturePath } from '../helpers/paths.js';

const script = fixturePath('store-torture.mjs');
const KILLS = 200;
const SEED = 0x5eed_0006;
const KEEP = 2;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const options = { buffer: false, reject: false, stdin: 'ignore', stderr: 'pipe', timeout: 60_000 } as const;

interface Child {
  child: ResultPromise<typeof options>;
  output: () => string;
  /** Resolves when the child has printed `count` lines starting with `prefix` (or exits). */
  when: (prefix: string, count?: number) => Promise<void>;
}

function start(dir: string, rounds: number | 'inf', gcFirst = false, unsafe = false): Child {
  const child = execaNode(script, [dir, String(rounds), gcFirst ? 'gc' : 'put', unsafe ? 'unsafe' : 'safe'], options);
  let text = '';
  const waiters: Array<{ prefix: string; count: number; resolve: () => void }> = [];
  const check = (): void => {
    for (const w of [...waiters]) {
      if (text.split('\n').filter((l) => l.startsWith(w.prefix)).length >= w.count) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    text += d;
    check();
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => (text += `stderr: ${d}`));
  const when = (prefix: string, count = 1): Promise<void> =>
    Promise.race([
      new Promise<void>((resolve) => {
        waiters.push({ prefix, count, resolve });
        check();
      }),
      child.then(() => {}),
    ]);
  return { child, output: () => text, when };
}

/** What the child said: seqs begun and committed, whether gc was running, and the clock of each line. */
function lines(text: string): { begun: number[]; committed: number[]; inGc: boolean; times: Array<[string, number]> } {
  const out = { begun: [] as number[], committed: [] as number[], inGc: false, times: [] as Array<[string, number]> };
  for (const line of text.split('\n')) {
    const m = /^(begin|committed|gc-begin|gc-end)(?: (\d+))? ([\d.]+)$/.exec(line);
    if (!m) continue;
    out.times.push([m[1]!, Number(m[3])]);
    if (m[1] === 'begin') out.begun.push(Number(m[2]));
    if (m[1] === 'committed') out.committed.push(Number(m[2]));
    if (m[1] === 'gc-begin') out.inGc = true;
    if (m[1] === 'gc-end') out.inGc = false;
  }
  return out;
}

/** Median duration from each `from` line to the next `to` line. */
function medianSpan(times: Array<[string, number]>, from: string, to: string): number {
  const spans: number[] = [];
  for (let i = 0; i < times.length; i++) {
    if (times[i]![0] !== from) continue;
    const end = times.slice(i + 1).find(([k]) => k === to);
    if (end) spans.push(end[1] - times[i]![1]);
  }
  spans.sort((a, b) => a - b);
  return spans[Math.floor(spans.length / 2)] ?? 5;
}

/**
 * What is wrong with the store after a kill, as a list of problems (empty: all is well): verify is clean, the newest
 * KEEP committed checkpoints are listed, latest() is at least the last reported commit, and it restores byte-identical.
 */
async function checkStore(dir: string, maxCommitted: number): Promise<{ problems: string[]; latestSeq: number }> {
  const problems: string[] = [];
  const store = Store.open(dir);
  try {
    for (const p of verifyStore(store).problems) problems.push(`verify: checkpoint ${p.seq} ${p.part}: ${p.problem}`);
    const listed = store.list().map((m) => m.seq);
    for (let s = Math.max(1, maxCommitted - KEEP + 1); s <= maxCommitted; s++)
      if (!listed.includes(s)) problems.push(`checkpoint ${s} must survive`);
    const latest = store.latest();
    if (latest === null) {
      if (maxCommitted > 0) problems.push('no latest checkpoint');
      return { problems, latestSeq: 0 };
    }
    if (latest.seq < maxCommitted) problems.push(`latest is ${latest.seq}, ${maxCommitted} was committed`);
    if (latest.step !== stepOf(latest.seq)) problems.push(`latest step ${latest.step}`);
    const want = expectedDigests(latest.seq, smallContent);
    const reader = store.reader(latest);
    for (const part of reader.parts()) {
      try {
        if (sha(await reader.get(part)) !== want[part]) problems.push(`checkpoint ${latest.seq} part ${part} differs`);
      } catch (err) {
        problems.push(`checkpoint ${latest.seq} part ${part}: ${(err as Error).message}`);
      }
    }
    return { problems, latestSeq: latest.seq };
  } finally {
    store.close();
  }
}

/** Calibrate the kill windows on this machine: the median time of one write and of one gc (of the unsafe gc, for the negative control). */
async function calibrate(unsafe = false): Promise<{ writeMs: number; gcMs: number }> {
  const calDir = mkdtempSync(path.join(os.tmpdir(), 'soak-torture-cal-'));
  const cal = start(calDir, 3, false, unsafe);
  expect((await cal.child).exitCode, cal.output()).toBe(0);
  const calTimes = lines(cal.output()).times;
  rmSync(calDir, { recursive: true, force: true });
  return {
    writeMs: Math.min(Math.max(medianSpan(calTimes, 'begin', 'committed'), 3), 400),
    gcMs: Math.min(Math.max(medianSpan(calTimes, 'gc-begin', 'gc-end'), 3), 400),
  };
}

interface Kill {
  landed: 'put' | 'gc' | 'between';
  committed: number[];
}

/** Start the writer, wait for the aimed operation, sleep a seeded fraction of its duration, SIGKILL it. */
async function killOnce(
  dir: string,
  random: () => number,
  windows: { writeMs: number; gcMs: number },
  aimAtGc: boolean,
  unsafe = false,
): Promise<Kill> {
  const c = start(dir, 'inf', aimAtGc, unsafe);
  // A write-aimed kill lands in the child's first, second or third write, so the store grows and gc has work.
  await c.when(aimAtGc ? 'gc-begin' : 'begin', aimAtGc ? 1 : 1 + Math.floor(random() * 3));
  await sleep(random() * (aimAtGc ? windows.gcMs : windows.writeMs) * 1.2);
  c.child.kill('SIGKILL');
  const result = await c.child;
  expect(result.signal, `the child must die by our SIGKILL:\n${c.output()}`).toBe('SIGKILL');
  expect(c.output()).not.toContain('stderr:');
  const said = lines(c.output());
  const lastBegun = said.begun.at(-1);
  const torn = lastBegun !== undefined && !said.committed.includes(lastBegun);
  return { landed: said.inGc ? 'gc' : torn ? 'put' : 'between', committed: said.committed };
}

describe('store torture: SIGKILL during put and gc', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'soak-torture-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    `${KILLS} seeded kills: verify passes and the latest checkpoint restores byte-identical after each`,
    { timeout: 900_000 }, // bounded by its kill count; a loaded machine makes each kill round slower, not the test weaker
    async () => {
      const windows = await calibrate();
      const random = rng(SEED);
      let maxCommitted = 0;
      const landed = { put: 0, gc: 0, between: 0 };
      for (let k = 0; k < KILLS; k++) {
        const kill = await killOnce(dir, random, windows, random() < 0.5);
        landed[kill.landed]++;
        maxCommitted = Math.max(maxCommitted, ...kill.committed);
        const { problems, latestSeq } = await checkStore(dir, maxCommitted);
        expect(problems, `kill ${k}`).toEqual([]);
        maxCommitted = Math.max(maxCommitted, latestSeq);
      }
      const where = JSON.stringify(landed);
      // The schedule must really have hit both operations, or this proved little.
      expect(landed.gc, where).toBeGreaterThanOrEqual(40);
      expect(landed.put, where).toBeGreaterThanOrEqual(40);
      console.log(
        `torture: ${KILLS} kills (write ${windows.writeMs.toFixed(1)} ms, gc ${windows.gcMs.toFixed(1)} ms): ${where}; latest seq ${maxCommitted}`,
      );

      // Afterwards a clean gc leaves only the newest KEEP checkpoints, no torn packs, and a store that still verifies.
      const store = Store.open(dir);
      const report = gcStore(store, KEEP);
      expect(store.list().map((m) => m.seq)).toEqual(report.kept);
      expect(report.kept).toHaveLength(KEEP);
      expect(verifyStore(store).problems).toEqual([]);
      // The ram part's changed pages were stored as deltas, so kills also hit delta writes and gc's base rule.
      const ram = store.latest()!.parts.find((p) => p.name === 'ram')!;
      expect(ram.chunks.filter((h) => store.locate(h)?.base !== undefined).length).toBeGreaterThan(0);
      store.close();
      const packs = readdirSync(path.join(dir, 'packs'));
      expect(packs.filter((f) => f.endsWith('.pack') && !packs.includes(f.replace(/\.pack$/, '.idx')))).toEqual([]);
    },
  );

  it(
    'negative control: a gc that deletes packs before the old manifests are gone is caught within 120 kills',
    { timeout: 180_000 },
    async () => {
      const own = mkdtempSync(path.join(os.tmpdir(), 'soak-torture-neg-'));
      try {
        const windows = await calibrate(true);
        const random = rng(SEED + 1);
        let maxCommitted = 0;
        let caught: { kill: number; problems: string[] } | null = null;
        for (let k = 0; k < 120 && caught === null; k++) {
          // Half the kills land in writes, so the store grows and gc has packs to drop.
          const kill = await killOnce(own, random, windows, random() < 0.5, true);
          maxCommitted = Math.max(maxCommitted, ...kill.committed);
          const { problems, latestSeq } = await checkStore(own, maxCommitted);
          if (problems.length > 0) caught = { kill: k, problems };
          maxCommitted = Math.max(maxCommitted, latestSeq);
        }
        expect(caught, 'the unsafe gc order was never caught').not.toBeNull();
        expect(caught!.problems.join('\n')).toMatch(/verify: checkpoint \d+/);
        console.log(`torture negative control: caught at kill ${caught!.kill}: ${caught!.problems[0]}`);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    },
  );
});
