// store-vs-peers: the checkpoint series every system ingests: N checkpoints of one micro-VM session, each part a
// plain file in its checkpoint's folder, described (size, SHA-256) in series.json; captured once, reusable.
import { createHash } from 'node:crypto';
import {
  constants as fsc,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckpointSink, PartData, PutOptions } from '../../harness/store/types.js';
import { createMicrovmTarget } from '../../harness/targets/microvm/target.js';
import type { TargetInfo } from '../../harness/targets/target.js';
import { BenchError, log, mib } from './common.js';
import { roundTo } from '../../harness/core/round.js';

/** One part file of a checkpoint. */
export interface PartFile {
  name: string;
  size: number;
  sha256: string;
}
/** One checkpoint of the series: its folder and part files. */
export interface SeriesCheckpoint {
  seq: number;
  dir: string;
  step: number;
  pauseMs: number;
  parts: PartFile[];
}
/** The series as series.json records it. */
export interface Series {
  schemaVersion: 1;
  createdAt: string;
  everyMs: number;
  target: TargetInfo;
  guestRamMiB: number;
  diskMiB: number;
  /** Chunking the target itself asked for, per part name (what a soak run stores). */
  targetChunking: Record<string, string>;
  checkpoints: SeriesCheckpoint[];
  loadAvgAtCapture?: number[];
  /** Sum of every part file's size. */
  logicalBytes: number;
}

/** A CheckpointSink that writes each part to `dir/<name>` instead of storing it, and remembers the order of the parts. */
class FolderSink implements CheckpointSink {
  readonly chunking: Record<string, string> = {};
  /** Part names in the order the target handed them over (the order every system ingests them in). */
  readonly order: string[] = [];
  constructor(private readonly dir: string) {}
  private file(name: string, opts: PutOptions): string {
    const file = path.resolve(this.dir, name);
    if (!file.startsWith(this.dir + path.sep)) throw new Error(`part name "${name}" escapes the checkpoint folder`);
    this.chunking[name] = opts.chunking ?? 'fixed';
    this.order.push(name);
    return file;
  }
  async put(name: string, data: PartData, opts: PutOptions = {}): Promise<void> {
    const file = this.file(name, opts);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, data);
  }
  async putFile(name: string, src: string, opts: PutOptions = {}): Promise<void> {
    const file = this.file(name, opts);
    await mkdir(path.dirname(file), { recursive: true });
    await copyFile(src, file, fsc.COPYFILE_FICLONE);
  }
}

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const piece of createReadStream(file, { highWaterMark: 1 << 20 })) h.update(piece as Buffer);
  return h.digest('hex');
}

/**
 * The part files of a checkpoint folder, in `order` (the target's: what comes first is stored first, and decides which
 * copy of a chunk a later part dedups against), then any others by name.
 */
export async function describeParts(dir: string, order: readonly string[] = []): Promise<PartFile[]> {
  const rank = (n: string): number => (order.includes(n) ? order.indexOf(n) : order.length);
  const names = readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort()
    .sort((a, b) => rank(a) - rank(b));
  const parts: PartFile[] = [];
  for (const name of names)
    parts.push({ name, size: statSync(path.join(dir, name)).size, sha256: await sha256File(path.join(dir, name)) });
  return parts;
}

const ckptDir = (seq: number): string => String(seq).padStart(4, '0');

/** Boot one micro-VM session and write `count` checkpoints of it, `everyMs` apart, into `dir` (and series.json). */
export async function captureSeries(
  dir: string,
  count: number,
  everyMs: number,
  scratch: string,
  targetOptions: Record<string, unknown>,
): Promise<Series> {
  const workDir = mkdtempSync(path.join(scratch, 'w-'));
  const target = createMicrovmTarget({ workDir, sessionDir: scratch, stepMs: 5, options: targetOptions });
  const checkpoints: SeriesCheckpoint[] = [];
  const loadAvgAtCapture = os.loadavg().map((x) => roundTo(x, 2));
  let targetChunking: Record<string, string> = {};
  try {
    await target.boot();
    for (let seq = 1; seq <= count; seq++) {
      await sleep(everyMs);
      const sink = new FolderSink(path.join(dir, ckptDir(seq)));
      mkdirSync(path.join(dir, ckptDir(seq)), { recursive: true });
      const res = await target.checkpoint(sink, { skewMs: 0 });
      targetChunking = sink.chunking;
      const parts = await describeParts(path.join(dir, ckptDir(seq)), sink.order);
      checkpoints.push({ seq, dir: ckptDir(seq), step: res.step, pauseMs: Math.round(res.pauseMs), parts });
      log(
        `series: checkpoint ${seq}/${count} step ${res.step}, pause ${res.pauseMs.toFixed(0)} ms, ${parts.map((p) => `${p.name} ${mib(p.size)} MiB`).join(', ')}`,
      );
    }
  } finally {
    await target.destroy();
    rmSync(workDir, { recursive: true, force: true });
  }
  const info = target.describe();
  const series: Series = {
    schemaVersion: 1,
    createdAt: new Date().toISOString(),
    everyMs,
    target: info,
    guestRamMiB: Number(info.memoryMiB),
    diskMiB: Number(info.diskMiB),
    targetChunking,
    checkpoints,
    loadAvgAtCapture,
    logicalBytes: sumParts(checkpoints),
  };
  writeFileSync(path.join(dir, 'series.json'), JSON.stringify(series, null, 2));
  return series;
}

const sumParts = (cs: SeriesCheckpoint[]): number =>
  cs.reduce((a, c) => a + c.parts.reduce((b, p) => b + p.size, 0), 0);

/** The series in `dir` (first `count` checkpoints when given), or null when `dir` holds none yet. */
export function loadSeries(dir: string, count: number | undefined): Series | null {
  const file = path.join(dir, 'series.json');
  if (!existsSync(file)) {
    if (existsSync(dir) && readdirSync(dir).length > 0)
      throw new BenchError(`--series ${dir}: not empty and has no series.json; give an empty or new folder`, 3);
    return null;
  }
  const s = JSON.parse(readFileSync(file, 'utf8')) as Series;
  if (count !== undefined && count > s.checkpoints.length)
    throw new BenchError(
      `--series ${dir} holds ${s.checkpoints.length} checkpoints, --checkpoints asks for ${count}`,
      3,
    );
  const checkpoints = s.checkpoints.slice(0, count ?? s.checkpoints.length);
  for (const c of checkpoints) {
    for (const p of c.parts) {
      const f = path.join(dir, c.dir, p.name);
      if (!existsSync(f) || statSync(f).size !== p.size)
        throw new BenchError(`--series ${dir}: ${c.dir}/${p.name} is missing or not ${p.size} bytes`, 3);
    }
  }
  return { ...s, checkpoints, logicalBytes: sumParts(checkpoints) };
}
