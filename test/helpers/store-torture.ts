// The store torture tests' child and checks: the store-torture fixture (commits checkpoints and collects garbage) is
// started, SIGKILLed at a seeded moment inside a write or a gc, and the store is then checked: verify clean, the newest
// KEEP acknowledged checkpoints listed, the latest at least the last acknowledged one and byte-identical.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { expect } from 'vitest';
import { Store } from '../../harness/store/store.js';
import { verifyStore } from '../../harness/store/check/verify.js';
import { expectedDigests, smallContent, stepOf } from '../fixtures/store-content.mjs';
import { fixturePath } from './paths.js';

const script = fixturePath('store-torture.mjs');
/** gc keeps this many newest checkpoints (the fixture's KEEP). */
export const KEEP = 2;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const options = { buffer: false, reject: false, stdin: 'ignore', stderr: 'pipe', timeout: 60_000 } as const;

/** How a torture child runs: the unsafe gc order, and extra environment (the test-only store switches). */
export interface ChildMode {
  unsafe?: boolean;
  env?: Record<string, string>;
}

/** A running torture child and what it has printed. */
export interface Child {
  child: ResultPromise<typeof options>;
  output: () => string;
  /** Resolves when the child has printed `count` lines starting with `prefix` (or exits). */
  when: (prefix: string, count?: number) => Promise<void>;
}

/** Start the store-torture fixture on store `dir` for `rounds` rounds (a round: two writes and a gc). */
export function start(dir: string, rounds: number | 'inf', gcFirst = false, mode: ChildMode = {}): Child {
  const args = [dir, String(rounds), gcFirst ? 'gc' : 'put', mode.unsafe === true ? 'unsafe' : 'safe'];
  const child = execaNode(script, args, { ...options, env: mode.env ?? {} });
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
export function lines(text: string): {
  begun: number[];
  committed: number[];
  inGc: boolean;
  times: Array<[string, number]>;
} {
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
export function medianSpan(times: Array<[string, number]>, from: string, to: string): number {
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
export async function checkStore(
  dir: string,
  maxCommitted: number,
): Promise<{ problems: string[]; latestSeq: number }> {
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

/**
 * Calibrate the kill windows on this machine: the median time of one write and of one gc (of the unsafe gc, for the
 * negative control), in a fresh store under `parent` (a lazyfs mount is slower than a plain folder).
 */
export async function calibrate(mode: ChildMode = {}, parent = os.tmpdir()): Promise<KillWindows> {
  const calDir = mkdtempSync(path.join(parent, 'soak-torture-cal-'));
  const cal = start(calDir, 3, false, mode);
  expect((await cal.child).exitCode, cal.output()).toBe(0);
  const calTimes = lines(cal.output()).times;
  rmSync(calDir, { recursive: true, force: true });
  return {
    writeMs: Math.min(Math.max(medianSpan(calTimes, 'begin', 'committed'), 3), 400),
    gcMs: Math.min(Math.max(medianSpan(calTimes, 'gc-begin', 'gc-end'), 3), 400),
  };
}

/** Median durations of one checkpoint write and one gc, in ms: where kills are aimed. */
export interface KillWindows {
  writeMs: number;
  gcMs: number;
}

/** Where a kill landed, and the checkpoints the child said it committed (acknowledged) before it. */
export interface Kill {
  landed: 'put' | 'gc' | 'between';
  committed: number[];
}

/** Start the writer, wait for the aimed operation, sleep a seeded fraction of its duration, SIGKILL it. */
export async function killOnce(
  dir: string,
  random: () => number,
  windows: KillWindows,
  aimAtGc: boolean,
  mode: ChildMode = {},
): Promise<Kill> {
  const c = start(dir, 'inf', aimAtGc, mode);
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
