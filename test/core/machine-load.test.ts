// The machine-load sampler: exact shares from hand-made /proc texts, and real /proc readings in which a busy process
// tree shows up as harness CPU and an idle one does not (the negative control).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import {
  loadBetween,
  MachineLoadSampler,
  parseCpuTimes,
  parseLoad1,
  parseProcTicks,
  processTree,
  type LoadReading,
} from '../../harness/core/machine-load.js';
import { nowMs } from '../../harness/core/clock.js';

const linux = existsSync('/proc/stat');
const children: Array<ReturnType<typeof spawn>> = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** This process's own CPU ticks (utime + stime + children's). */
const ownTicks = (): number => parseProcTicks(readFileSync(`/proc/${process.pid}/stat`, 'utf8'))!;

/** Spin until this process has used `ticks` more clock ticks of CPU (observed progress, not a sleep). */
function burn(ticks: number): void {
  const start = ownTicks();
  let x = 0;
  while (ownTicks() - start < ticks) for (let i = 0; i < 100_000; i++) x += Math.sqrt(i);
  expect(x).toBeGreaterThan(0);
}

describe('parsing /proc', () => {
  it('reads the cpu line: busy, idle (with iowait), steal and total in ticks', () => {
    const text = 'cpu  100 5 45 800 20 0 10 20 7 0\ncpu0 50 2 20 400 10 0 5 10 3 0\nintr 1\n';
    expect(parseCpuTimes(text)).toEqual({ total: 1000, idle: 820, busy: 160, steal: 20 });
    expect(parseCpuTimes('intr 1\n')).toBeNull();
    expect(parseCpuTimes('cpu  1 x 3 4\n')).toBeNull();
  });

  it("reads the 1-minute load average and a process tree's ticks (a comm with spaces and parentheses)", () => {
    expect(parseLoad1('5.52 4.10 3.33 8/137 15320\n')).toBe(5.52);
    expect(parseLoad1('')).toBeNull();
    const stat = '42 (node (x) y) S 1 42 42 0 -1 4194304 10 0 0 0 300 50 7 3 20 0 11 0 12345 0 0';
    expect(parseProcTicks(stat)).toBe(360);
    expect(parseProcTicks('garbage')).toBeNull();
  });

  it('turns two readings into shares of all CPU time; other = busy - harness, never below 0', () => {
    const at = (total: number, busy: number, steal: number, harness: number, atMs: number): LoadReading => ({
      cpu: { total, idle: total - busy - steal, busy, steal },
      harnessTicks: harness,
      load1: 5.5,
      atMs,
    });
    expect(loadBetween(at(1000, 500, 0, 100, 0), at(1400, 800, 40, 150, 2000))).toEqual({
      windowMs: 2000,
      load1: 5.5,
      stealPct: 10,
      busyPct: 75,
      harnessPct: 12.5,
      otherCpuPct: 62.5,
    });
    // the harness cannot have used more than the busy time (ticks are counted at different instants)
    expect(loadBetween(at(0, 0, 0, 0, 0), at(100, 10, 0, 30, 1000))).toMatchObject({ harnessPct: 10, otherCpuPct: 0 });
    expect(loadBetween(at(100, 0, 0, 0, 0), at(100, 0, 0, 0, 1))).toBeNull();
  });
});

describe.skipIf(!linux)('sampling the real /proc', () => {
  it('finds a child in the process tree of its parent', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    children.push(child);
    await new Promise<void>((resolve) => child.once('spawn', () => resolve()));
    let tree: number[] = [];
    while (!tree.includes(child.pid!)) tree = await processTree(process.pid);
    expect(tree[0]).toBe(process.pid);
  });

  it('this process burning CPU is harness time; an idle process tree is not (negative control)', async () => {
    const idle = spawn('sleep', ['600'], { stdio: 'ignore' });
    children.push(idle);
    await new Promise<void>((resolve) => idle.once('spawn', () => resolve()));
    const mine = new MachineLoadSampler(process.pid, nowMs, 0);
    const theirs = new MachineLoadSampler(idle.pid!, nowMs, 0);
    expect(await mine.sample()).toBeNull(); // the first reading is the baseline
    expect(await theirs.sample()).toBeNull();
    burn(30);
    const a = (await mine.sample())!;
    const b = (await theirs.sample())!;
    expect(a.harnessPct).toBeGreaterThan(0);
    expect(b.harnessPct).toBe(0);
    for (const s of [a, b]) {
      expect(s.load1).toBeGreaterThanOrEqual(0);
      expect(s.stealPct).toBeGreaterThanOrEqual(0);
      expect(s.busyPct).toBeLessThanOrEqual(100);
      expect(Math.abs(s.harnessPct + s.otherCpuPct - s.busyPct)).toBeLessThanOrEqual(0.2);
    }
    expect(b.otherCpuPct).toBeGreaterThan(0); // our burning is "other" to the idle tree
  });

  it('skips a window shorter than its minimum', async () => {
    const s = new MachineLoadSampler(process.pid, nowMs, 60_000);
    await s.sample();
    await expect(s.sample()).resolves.toBeNull();
  });
});
