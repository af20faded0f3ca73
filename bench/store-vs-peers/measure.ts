// store-vs-peers: measuring one system on the series: ingest time and CPU, stored bytes, restore time and CPU of the
// last checkpoint, and whether every restored part is byte-identical; with the machine's load at the start.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { elapsedS, log, mib } from './common.js';
import { describeParts, type Series, type SeriesCheckpoint } from './series.js';
import type { Ctx, System } from './systems.js';
import { roundTo } from '../../harness/core/round.js';

/** What one system measured on the series. */
export interface Result {
  id: string;
  settings: string;
  storedBytes: number;
  allocatedBytes: number;
  storedByTop: Record<string, number>;
  ingestS: number;
  ingestCpuS: number;
  restoreS: number;
  restoreCpuS: number;
  identical: boolean;
  mismatches: string[];
  loadAvgAtStart: number[];
  otherQemuAtStart: number;
}

/** CPU seconds of this process plus its reaped children (user + system); `clkTck`: the kernel's clock ticks per second. */
function cpuS(clkTck: number): number {
  const own = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // f[13], f[14]: cutime, cstime (fields 16, 17)
  return (own.user + own.system) / 1e6 + (Number(f[13]) + Number(f[14])) / clkTck;
}

function walk(dir: string): { bytes: number; allocated: number; byTop: Record<string, number> } {
  const res = { bytes: 0, allocated: 0, byTop: {} as Record<string, number> };
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const st = statSync(path.join(e.parentPath, e.name));
    const top = path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep)[0]!;
    res.bytes += st.size;
    res.allocated += st.blocks * 512;
    res.byTop[top] = (res.byTop[top] ?? 0) + st.size;
  }
  return res;
}

function otherQemu(): number {
  let n = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').startsWith('qemu-system')) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

/** Ingest the whole series into `sys`, restore its last checkpoint, compare it byte for byte; the figures. */
export async function measure(
  sys: System,
  series: Series,
  seriesDir: string,
  root: string,
  clkTck: number,
): Promise<Result> {
  const work = path.join(root, sys.id);
  const c: Ctx = { series, seriesDir, repo: path.join(work, 'repo'), work };
  mkdirSync(work, { recursive: true });
  const loadAvgAtStart = os.loadavg().map((x) => roundTo(x, 2));
  const otherQemuAtStart = otherQemu();
  await sys.init(c);
  const settings = await sys.settings(c);
  let t0 = process.hrtime.bigint();
  let cpu0 = cpuS(clkTck);
  for (const ck of series.checkpoints) {
    await sys.ingest(c, ck);
    log(`${sys.id}: ingested ${ck.dir} (${elapsedS(t0).toFixed(1)} s so far)`);
  }
  await sys.done?.(c);
  const ingestS = elapsedS(t0);
  const ingestCpuS = cpuS(clkTck) - cpu0;
  const stored = walk(c.repo);
  const last = series.checkpoints.at(-1)!;
  const out = path.join(work, 'restore');
  mkdirSync(out);
  t0 = process.hrtime.bigint();
  cpu0 = cpuS(clkTck);
  await sys.restore(c, last, out);
  const restoreS = elapsedS(t0);
  const restoreCpuS = cpuS(clkTck) - cpu0;
  const mismatches = await compareRestore(out, last);
  rmSync(out, { recursive: true, force: true });
  log(
    `${sys.id}: stored ${mib(stored.bytes)} MiB, ingest ${ingestS.toFixed(1)} s, restore ${restoreS.toFixed(2)} s, ${mismatches.length === 0 ? 'identical' : `NOT IDENTICAL: ${mismatches.join('; ')}`}`,
  );
  return {
    id: sys.id,
    settings,
    storedBytes: stored.bytes,
    allocatedBytes: stored.allocated,
    storedByTop: stored.byTop,
    ingestS,
    ingestCpuS,
    restoreS,
    restoreCpuS,
    identical: mismatches.length === 0,
    mismatches,
    loadAvgAtStart,
    otherQemuAtStart,
  };
}

/** Every part restored, byte for byte (SHA-256 against the series), and nothing else. */
async function compareRestore(out: string, ck: SeriesCheckpoint): Promise<string[]> {
  const got = await describeParts(out);
  const bad: string[] = [];
  for (const want of ck.parts) {
    const g = got.find((p) => p.name === want.name);
    if (g === undefined) bad.push(`${want.name} missing`);
    else if (g.size !== want.size) bad.push(`${want.name} is ${g.size} bytes, the series has ${want.size}`);
    else if (g.sha256 !== want.sha256)
      bad.push(
        `${want.name} content differs (SHA-256 ${g.sha256.slice(0, 12)}, the series has ${want.sha256.slice(0, 12)})`,
      );
  }
  for (const g of got) if (!ck.parts.some((p) => p.name === g.name)) bad.push(`unexpected ${g.name}`);
  return bad;
}
