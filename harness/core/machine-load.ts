// How loaded the machine was while a run measured: the 1-minute load average, CPU steal, and the CPU share of every
// process outside the harness, read from /proc (Linux). Cheap asynchronous reads, so a sampler on a timer never holds
// up the event loop that times a kill. Definitions (all shares in % of the whole machine's CPU time, every core):
//   stealPct    = delta steal / delta total, from the "cpu" line of /proc/stat
//   busyPct     = delta (user + nice + system + irq + softirq) / delta total
//   harnessPct  = delta CPU time of the runner and its process tree (utime + stime + cutime + cstime of the runner and
//                 of every live descendant, from /proc/<pid>/stat; a reaped child's time moves into its parent's cutime)
//                 / delta total, at most busyPct
//   otherCpuPct = busyPct - harnessPct: what the rest of the machine took from the cores the run measured on.
import { readdir, readFile } from 'node:fs/promises';
import { roundTo } from './round.js';

/** The "cpu" line of /proc/stat in clock ticks: all time, idle time (idle + iowait), busy time and steal. */
export interface CpuTimes {
  total: number;
  idle: number;
  busy: number;
  steal: number;
}

/** One machine-load sample over the window since the previous reading. */
export interface LoadSample {
  /** Length of the window the shares cover, ms. */
  windowMs: number;
  /** 1-minute load average at the end of the window. */
  load1: number;
  stealPct: number;
  busyPct: number;
  harnessPct: number;
  otherCpuPct: number;
}

/** The "cpu" line of /proc/stat (`cpu user nice system idle iowait irq softirq steal guest guest_nice`); null if absent. */
export function parseCpuTimes(procStat: string): CpuTimes | null {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (line === undefined) return null;
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 4 || f.some((x) => !Number.isFinite(x))) return null;
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = f;
  const busy = user + nice + system + irq + softirq; // guest time is already inside user
  return { total: busy + idle + iowait + steal, idle: idle + iowait, busy, steal };
}

/** The 1-minute load average from the text of /proc/loadavg; null if it is not one. */
export function parseLoad1(loadavg: string): number | null {
  const x = Number(loadavg.trim().split(/\s+/)[0]);
  return loadavg.trim() !== '' && Number.isFinite(x) && x >= 0 ? x : null;
}

/** utime + stime + cutime + cstime (fields 14-17) of a /proc/<pid>/stat text, in clock ticks; null if it is not one. */
export function parseProcTicks(stat: string): number | null {
  const close = stat.lastIndexOf(')');
  if (close < 0) return null;
  const f = stat.slice(close + 2).split(' '); // f[0] is field 3
  const ticks = [f[11], f[12], f[13], f[14]].map(Number);
  return ticks.every((x) => Number.isInteger(x) && x >= 0) ? ticks.reduce((a, b) => a + b, 0) : null;
}

/** What one reading saw: machine CPU times, the harness tree's CPU ticks, the load average, when (ms). */
export interface LoadReading {
  cpu: CpuTimes;
  harnessTicks: number;
  load1: number;
  atMs: number;
}

/** The sample over the window between two readings (pure); null when no CPU time passed between them. */
export function loadBetween(prev: LoadReading, next: LoadReading): LoadSample | null {
  const total = next.cpu.total - prev.cpu.total;
  if (total <= 0) return null;
  const pct = (x: number): number => Math.min(100, Math.max(0, (x / total) * 100));
  const busyPct = pct(next.cpu.busy - prev.cpu.busy);
  const harnessPct = Math.min(busyPct, pct(next.harnessTicks - prev.harnessTicks));
  return {
    windowMs: Math.round(next.atMs - prev.atMs),
    load1: next.load1,
    stealPct: roundTo(pct(next.cpu.steal - prev.cpu.steal), 1),
    busyPct: roundTo(busyPct, 1),
    harnessPct: roundTo(harnessPct, 1),
    otherCpuPct: roundTo(busyPct - harnessPct, 1),
  };
}

async function readText(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null; // a process that just exited, or no /proc
  }
}

/** `root` and every live descendant (through /proc/<pid>/task/<tid>/children), root first. */
export async function processTree(root: number): Promise<number[]> {
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    let tids: string[];
    try {
      tids = await readdir(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      const kids = await readText(`/proc/${pid}/task/${tid}/children`);
      for (const k of kids?.trim().split(/\s+/) ?? []) if (k !== '' && !out.includes(Number(k))) queue.push(Number(k));
    }
  }
  return out;
}

/** Take one reading now (null when /proc/stat or /proc/loadavg cannot be read: not Linux). */
export async function readLoad(root: number, nowMs: () => number): Promise<LoadReading | null> {
  const cpu = parseCpuTimes((await readText('/proc/stat')) ?? '');
  const load1 = parseLoad1((await readText('/proc/loadavg')) ?? '');
  if (cpu === null || load1 === null) return null;
  let harnessTicks = 0;
  for (const pid of await processTree(root))
    harnessTicks += parseProcTicks((await readText(`/proc/${pid}/stat`)) ?? '') ?? 0;
  return { cpu, harnessTicks, load1, atMs: nowMs() };
}

/** Samples machine load over consecutive windows; each sample() covers the time since the previous one. */
export class MachineLoadSampler {
  private last: LoadReading | null = null;
  private busy = false;

  /** `root`: the pid whose process tree is the harness (the runner); `minWindowMs`: shorter windows are skipped. */
  constructor(
    private readonly root: number,
    private readonly nowMs: () => number,
    private readonly minWindowMs = 100,
  ) {}

  /** The sample since the previous call (null on the first call, for a window under minWindowMs, or off Linux). */
  async sample(): Promise<LoadSample | null> {
    if (this.busy || (this.last !== null && this.nowMs() - this.last.atMs < this.minWindowMs)) return null;
    this.busy = true;
    try {
      const next = await readLoad(this.root, this.nowMs);
      if (next === null) return null;
      const prev = this.last;
      this.last = next;
      return prev === null ? null : loadBetween(prev, next);
    } finally {
      this.busy = false;
    }
  }
}
