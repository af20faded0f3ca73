// One micro-VM checkpoint series into our store, restic, borg and casync, side by side: stored MiB, ratio, ingest, restore.
// Run after tsc: node dist/bench/store-vs-peers.js [--series DIR] [--checkpoints 20] [--every-ms 2000] [--target-options JSON] [--keep-series]
//   [--systems ours-cdc-none,restic,...] [--skip-missing] [--json]   (--systems defaults to all; ids in SYSTEMS)
// Peers come from Debian's packages: scripts/bench-deps.sh. Exit: 0 done, 1 a restore was not byte-identical,
// 3 usage or a missing peer tool, 4 anything else.
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
import { benchArgs } from './args.js';
import { execa } from 'execa';
import { type Compression, Store } from '../harness/store/store.js';
import type { CheckpointSink, Chunking, PartData, PutOptions } from '../harness/store/types.js';
import { createMicrovmTarget } from '../harness/targets/microvm/target.js';
import type { TargetInfo } from '../harness/targets/target.js';

/** Chunkings of our store's 'ram' part: one run of ours each (per compression). A new mode = one more entry here. */
const OUR_RAM_CHUNKINGS = ['fixed', 'cdc', 'qemu-pages'] as const satisfies readonly Chunking[];
/** Our store's compressions: `none` is the one the dedup bar is judged on. */
const OUR_COMPRESSIONS = ['none', 'deflate', 'lz4'] as const satisfies readonly Compression[];
const SUBPROCESS_TIMEOUT_MS = 30 * 60_000;
const THROWAWAY_PASSWORD = 'store-vs-peers-throwaway';

class BenchError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

// ---- the series: N checkpoints of one micro-VM session, each part a plain file ----------------------------------

interface PartFile {
  name: string;
  size: number;
  sha256: string;
}
interface SeriesCheckpoint {
  seq: number;
  dir: string;
  step: number;
  pauseMs: number;
  parts: PartFile[];
}
interface Series {
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
async function describeParts(dir: string, order: readonly string[] = []): Promise<PartFile[]> {
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

async function captureSeries(
  dir: string,
  count: number,
  everyMs: number,
  scratch: string,
  targetOptions: Record<string, unknown>,
): Promise<Series> {
  const workDir = mkdtempSync(path.join(scratch, 'w-'));
  const target = createMicrovmTarget({ workDir, sessionDir: scratch, stepMs: 5, options: targetOptions });
  const checkpoints: SeriesCheckpoint[] = [];
  const loadAvgAtCapture = os.loadavg().map((x) => Math.round(x * 100) / 100);
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
function loadSeries(dir: string, count: number | undefined): Series | null {
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

// ---- the systems under comparison -------------------------------------------------------------------------------

interface Ctx {
  series: Series;
  seriesDir: string;
  repo: string;
  work: string;
}
interface System {
  id: string;
  /** Binary that must be on PATH (null: ours). */
  tool: string | null;
  settings: (c: Ctx) => Promise<string>;
  init: (c: Ctx) => Promise<void>;
  ingest: (c: Ctx, ck: SeriesCheckpoint) => Promise<void>;
  /** After the last ingest (ours closes its store: it is opened once, as a session host does). */
  done?: (c: Ctx) => Promise<void>;
  restore: (c: Ctx, ck: SeriesCheckpoint, out: string) => Promise<void>;
}

const run = async (
  file: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<string> => (await execa(file, args, { ...opts, timeout: SUBPROCESS_TIMEOUT_MS, stdin: 'ignore' })).stdout;

const CHUNKING_LABEL: Record<string, string> = {
  fixed: 'fixed 4 KiB',
  cdc: 'content-defined ~4 KiB (1-16 KiB)',
  'qemu-pages': 'QEMU stream parsed: 4 KiB page chunks (a changed page as its differing 256-byte blocks) + CDC meta',
  'qemu-pages-whole': 'QEMU stream parsed: 4 KiB page chunks, every new page whole (no deltas) + CDC meta',
};

/** Our store; `whole`: page-split without sub-page deltas (what the deltas add, in the same run). */
function ours(chunking: Chunking, compression: Compression, whole = false): System {
  let store: Store | undefined;
  const label = whole ? `${chunking}-whole` : chunking;
  return {
    id: `ours-${label}-${compression}`,
    tool: null,
    settings: () =>
      Promise.resolve(
        `ram ${CHUNKING_LABEL[label] ?? label}, rest fixed 4 KiB; ${compression === 'lz4' ? 'LZ4 blocks (default)' : compression === 'deflate' ? 'deflate-raw level 1' : 'no compression'}`,
      ),
    init: () => Promise.resolve(),
    ingest: async (c, ck) => {
      store ??= Store.open(c.repo, { compression, deltas: !whole });
      const writer = store.begin(ck.step);
      for (const p of ck.parts)
        await writer.putFile(p.name, path.join(c.seriesDir, ck.dir, p.name), {
          chunking: p.name === 'ram' ? chunking : 'fixed',
        });
      writer.commit({ series: ck.dir });
    },
    done: () => {
      store?.close();
      store = undefined;
      return Promise.resolve();
    },
    restore: async (c, ck, out) => {
      const store = Store.open(c.repo);
      try {
        const m = store.latest();
        if (m === null || m.seq !== ck.seq)
          throw new Error(`ours: latest checkpoint is ${m?.seq ?? 'none'}, expected ${ck.seq}`);
        const reader = store.reader(m);
        for (const name of reader.parts()) {
          mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
          await reader.writeFile(name, path.join(out, name));
        }
      } finally {
        store.close();
      }
    },
  };
}

const resticEnv = (c: Ctx): Record<string, string> => ({
  RESTIC_REPOSITORY: c.repo,
  RESTIC_PASSWORD: THROWAWAY_PASSWORD,
  RESTIC_CACHE_DIR: path.join(c.work, 'cache'),
});
const restic: System = {
  id: 'restic',
  tool: 'restic',
  settings: async (c) => {
    const cfg = JSON.parse(await run('restic', ['cat', 'config'], { env: resticEnv(c) })) as { version?: number };
    return `repo v${cfg.version}, compression auto (zstd, default); CDC 512 KiB-8 MiB (~1 MiB); AES-256 always on`;
  },
  init: async (c) => {
    await run('restic', ['init'], { env: resticEnv(c) });
  },
  ingest: async (c, ck) => {
    await run('restic', ['backup', '--quiet', '--tag', `ckpt-${ck.dir}`, '.'], {
      cwd: path.join(c.seriesDir, ck.dir),
      env: resticEnv(c),
    });
  },
  restore: async (c, ck, out) => {
    await run('restic', ['restore', 'latest', '--tag', `ckpt-${ck.dir}`, '--target', out], {
      env: resticEnv(c),
    });
  },
};

function borg(compression: 'lz4' | 'none'): System {
  const env = (c: Ctx): Record<string, string> => ({
    BORG_BASE_DIR: path.join(c.work, 'base'),
    BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK: 'yes',
    BORG_RELOCATED_REPO_ACCESS_IS_OK: 'yes',
  });
  return {
    id: `borg-${compression}`,
    tool: 'borg',
    settings: () =>
      Promise.resolve(
        `--compression ${compression}${compression === 'lz4' ? ' (default)' : ''}; buzhash CDC 19,23,21 (~2 MiB, default); --encryption none`,
      ),
    init: async (c) => {
      await run('borg', ['init', '--encryption', 'none', c.repo], { env: env(c) });
    },
    ingest: async (c, ck) => {
      await run('borg', ['create', '--compression', compression, `${c.repo}::ckpt-${ck.dir}`, '.'], {
        cwd: path.join(c.seriesDir, ck.dir),
        env: env(c),
      });
    },
    restore: async (c, ck, out) => {
      await run('borg', ['extract', `${c.repo}::ckpt-${ck.dir}`], { cwd: out, env: env(c) });
    },
  };
}

const casyncIndex = (c: Ctx, ck: SeriesCheckpoint, p: PartFile): string =>
  path.join(c.repo, 'indexes', ck.dir, `${p.name.replaceAll('/', '%')}.caibx`);
const casync: System = {
  id: 'casync',
  tool: 'casync',
  settings: () => Promise.resolve('one blob index per part; --chunk-size 4096 (1-16 KiB); zstd (default); sha512-256'),
  init: (c) => {
    mkdirSync(path.join(c.repo, 'indexes'), { recursive: true });
    return Promise.resolve();
  },
  ingest: async (c, ck) => {
    mkdirSync(path.join(c.repo, 'indexes', ck.dir), { recursive: true });
    for (const p of ck.parts)
      await run('casync', [
        'make',
        `--store=${path.join(c.repo, 'store')}`,
        '--chunk-size=4096',
        casyncIndex(c, ck, p),
        path.join(c.seriesDir, ck.dir, p.name),
      ]);
  },
  restore: async (c, ck, out) => {
    for (const p of ck.parts) {
      mkdirSync(path.dirname(path.join(out, p.name)), { recursive: true });
      await run('casync', [
        'extract',
        `--store=${path.join(c.repo, 'store')}`,
        casyncIndex(c, ck, p),
        path.join(out, p.name),
      ]);
    }
  },
};

const SYSTEMS: System[] = [
  ...OUR_COMPRESSIONS.flatMap((z) => OUR_RAM_CHUNKINGS.map((c) => ours(c, z))),
  ours('qemu-pages', 'none', true),
  restic,
  borg('lz4'),
  borg('none'),
  casync,
];

// ---- measuring ---------------------------------------------------------------------------------------------------

interface Result {
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

let clkTck = 100;
/** CPU seconds of this process plus its reaped children (user + system). */
function cpuS(): number {
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

async function measure(sys: System, series: Series, seriesDir: string, root: string): Promise<Result> {
  const work = path.join(root, sys.id);
  const c: Ctx = { series, seriesDir, repo: path.join(work, 'repo'), work };
  mkdirSync(work, { recursive: true });
  const loadAvgAtStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const otherQemuAtStart = otherQemu();
  await sys.init(c);
  const settings = await sys.settings(c);
  let t0 = process.hrtime.bigint();
  let cpu0 = cpuS();
  for (const ck of series.checkpoints) {
    await sys.ingest(c, ck);
    log(`${sys.id}: ingested ${ck.dir} (${elapsedS(t0).toFixed(1)} s so far)`);
  }
  await sys.done?.(c);
  const ingestS = elapsedS(t0);
  const ingestCpuS = cpuS() - cpu0;
  const stored = walk(c.repo);
  const last = series.checkpoints.at(-1)!;
  const out = path.join(work, 'restore');
  mkdirSync(out);
  t0 = process.hrtime.bigint();
  cpu0 = cpuS();
  await sys.restore(c, last, out);
  const restoreS = elapsedS(t0);
  const restoreCpuS = cpuS() - cpu0;
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

// ---- output ------------------------------------------------------------------------------------------------------

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const mib = (b: number): string => (b / 2 ** 20).toFixed(1);
const elapsedS = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e9;

const onPath = (tool: string): boolean =>
  (process.env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && existsSync(path.join(d, tool)));

async function toolVersion(tool: string, args: string[]): Promise<string> {
  try {
    return (await run(tool, args))
      .split('\n')[0]!
      .replace(new RegExp(`^${tool}\\s+`), '')
      .trim();
  } catch {
    return 'not installed';
  }
}

/** The guest disk's ext4 journaling as the series recorded it (series captured before the option: not recorded). */
function diskFs(series: Series): string {
  const fc = series.target.diskFastCommit;
  return fc === undefined ? '' : fc ? ' (ext4 fast_commit)' : ' (ext4, plain jbd2)';
}

function markdown(series: Series, results: Result[], env: Record<string, string | number>, skipped: string[]): string {
  const n = series.checkpoints.length;
  const ramDisk = n * (series.guestRamMiB + series.diskMiB) * 2 ** 20;
  const rows = results.map((r) =>
    [
      r.id,
      r.settings,
      mib(r.storedBytes),
      mib(r.allocatedBytes),
      `${(series.logicalBytes / r.storedBytes).toFixed(1)}x`,
      `${(ramDisk / r.storedBytes).toFixed(1)}x`,
      r.ingestS.toFixed(1),
      (series.logicalBytes / 1e6 / r.ingestS).toFixed(0),
      r.ingestCpuS.toFixed(1),
      r.restoreS.toFixed(2),
      r.identical ? 'yes' : `**NO** (${r.mismatches.join('; ')})`,
    ].join(' | '),
  );
  const lines = [
    `### store-vs-peers: ${n} checkpoints of one micro-VM session`,
    '',
    `Series: ${n} checkpoints ${series.everyMs} ms apart (${series.createdAt}), guest ${series.guestRamMiB} MiB RAM + ${series.diskMiB} MiB disk${diskFs(series)}, ${series.target.accelerator}, QEMU ${series.target.qemuVersion}, ramCapture ${series.target.ramCapture}.`,
    `Logical bytes: ${mib(series.logicalBytes)} MiB (sum of part files: ${partSummary(series)}); N x (guest RAM + disk) = ${mib(ramDisk)} MiB.`,
    '',
    '| system | settings | stored MiB | on disk MiB | ratio | ratio vs N x (RAM+disk) | ingest s | ingest MB/s | ingest CPU s | restore last s | restored identical |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r} |`),
    '',
    'stored = sum of file sizes in the repository folder (caches outside it); on disk = allocated blocks; ratio = logical / stored;',
    'MB/s = 10^6 bytes of the series per second of ingest wall time; CPU = user + system of the tool (ours: this process);',
    'restore = the last checkpoint, every part, into an empty folder on the same disk, with a warm page cache.',
    ...bars(series, results),
    skipped.length > 0 ? `Skipped (tool missing, --skip-missing): ${skipped.join(', ')}.` : '',
    '',
    `Environment: ${Object.entries(env)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}.`,
    `Load average (1/5/15 min) and QEMU processes running: at capture ${series.loadAvgAtCapture?.join('/') ?? 'not recorded'}; ${results.map((r) => `${r.id} ${r.loadAvgAtStart.map((x) => x.toFixed(2)).join('/')} (${r.otherQemuAtStart} QEMU)`).join(', ')}.`,
    'Each number is from one run on a shared machine (other sessions may run QEMU and tests): measured once, not a distribution.',
  ];
  return lines.filter((l, i) => l !== '' || lines[i - 1] !== '').join('\n');
}

function partSummary(series: Series): string {
  const by = new Map<string, number[]>();
  for (const c of series.checkpoints) for (const p of c.parts) by.set(p.name, [...(by.get(p.name) ?? []), p.size]);
  return [...by].map(([name, s]) => `${name} ${mib(Math.min(...s))}-${mib(Math.max(...s))} MiB`).join(', ');
}

/** The done-when bars of issue 6, each with the measured value beside its verdict. */
function bars(series: Series, results: Result[]): string[] {
  const resticR = results.find((r) => r.id === 'restic');
  return results
    .filter((r) => r.id.startsWith('ours-') && r.id.endsWith('-none'))
    .flatMap((r) => {
      const ratio = series.logicalBytes / r.storedBytes;
      const vsRestic =
        resticR === undefined
          ? 'restic not run'
          : `${r.restoreS.toFixed(2)} s vs restic ${resticR.restoreS.toFixed(2)} s: ${r.restoreS < resticR.restoreS ? 'pass' : 'FAIL'}`;
      return [
        `Bars, ${r.id}: dedup >= 19x: ${ratio.toFixed(1)}x ${ratio >= 19 ? 'pass' : 'FAIL'}${series.checkpoints.length === 20 ? '' : ` (bar is for 20 checkpoints; this series has ${series.checkpoints.length})`}; restore byte-identical: ${r.identical ? 'pass' : 'FAIL'}; restore faster than restic: ${vsRestic}.`,
      ];
    });
}

// ---- main --------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const { values } = benchArgs(
    'store-vs-peers',
    'One micro-VM checkpoint series into our store, restic, borg and casync, side by side: stored MiB, ratio, ingest, restore.',
    {
      series: 'a saved checkpoint series to reuse (default: record a new one)',
      checkpoints: 'checkpoints to record',
      'every-ms': 'time between checkpoints (ms)',
      'keep-series': 'keep the recorded series',
      'target-options': 'microvm targetOptions as JSON',
      systems: 'comma-separated system ids (default: all)',
      'skip-missing': 'skip a peer tool that is not installed instead of exiting 3',
      json: 'JSON output',
    },
    {
      options: {
        series: { type: 'string' },
        checkpoints: { type: 'string' },
        'every-ms': { type: 'string', default: '2000' },
        'keep-series': { type: 'boolean', default: false },
        'target-options': { type: 'string', default: '{}' },
        systems: { type: 'string', default: SYSTEMS.map((s) => s.id).join(',') },
        'skip-missing': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    },
  );
  const count = values.checkpoints === undefined ? undefined : Number(values.checkpoints);
  const everyMs = Number(values['every-ms']);
  if (count !== undefined && !(Number.isInteger(count) && count > 0))
    throw new BenchError(`--checkpoints must be a positive integer, got "${values.checkpoints}"`, 3);
  if (!(Number.isInteger(everyMs) && everyMs >= 0))
    throw new BenchError(`--every-ms must be a non-negative integer, got "${values['every-ms']}"`, 3);
  let targetOptions: Record<string, unknown>;
  try {
    const parsed = JSON.parse(values['target-options']) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    targetOptions = parsed as Record<string, unknown>;
  } catch (err) {
    throw new BenchError(
      `--target-options must be a JSON object of microvm target options (e.g. '{"diskFastCommit":false}'): ${(err as Error).message}`,
      3,
    );
  }
  const wanted = values.systems
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (wanted.includes('help')) {
    console.log(SYSTEMS.map((s) => s.id).join('\n'));
    return 0;
  }
  const unknown = wanted.filter((id) => !SYSTEMS.some((s) => s.id === id));
  if (unknown.length > 0)
    throw new BenchError(`--systems: unknown ${unknown.join(', ')} (known: ${SYSTEMS.map((s) => s.id).join(', ')})`, 3);

  // Missing peers are found before a long capture, not after it.
  const skipped: string[] = [];
  const systems: System[] = [];
  for (const sys of SYSTEMS.filter((s) => wanted.includes(s.id))) {
    if (sys.tool !== null && !onPath(sys.tool)) {
      if (!values['skip-missing'])
        throw new BenchError(
          `${sys.tool} (for ${sys.id}) is not installed: run scripts/bench-deps.sh (Debian packages restic borgbackup casync), or pass --skip-missing`,
          3,
        );
      skipped.push(sys.id);
    } else systems.push(sys);
  }
  clkTck = Number(await run('getconf', ['CLK_TCK']).catch(() => '100')) || 100;

  const root = mkdtempSync(path.join(os.tmpdir(), 'store-vs-peers-'));
  const keep = values['keep-series'];
  const cleanup = (): void => {
    if (!keep) rmSync(root, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  try {
    const seriesDir = path.resolve(values.series ?? path.join(root, 'series'));
    let series = loadSeries(seriesDir, count);
    if (series === null) {
      mkdirSync(seriesDir, { recursive: true });
      log(`series: capturing ${count ?? 20} checkpoints into ${seriesDir}`);
      series = await captureSeries(seriesDir, count ?? 20, everyMs, root, targetOptions);
    } else log(`series: reusing ${series.checkpoints.length} checkpoints from ${seriesDir}`);

    const results: Result[] = [];
    for (const sys of systems) results.push(await measure(sys, series, seriesDir, root));
    const env = {
      node: process.version,
      cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`,
      kernel: os.release(),
      qemu: String(series.target.qemuVersion),
      restic: await toolVersion('restic', ['version']),
      borg: await toolVersion('borg', ['--version']),
      casync: await toolVersion('casync', ['--version']),
    };
    if (values.json) {
      console.log(
        JSON.stringify(
          {
            schemaVersion: 1,
            seriesDir,
            series: { ...series, checkpoints: series.checkpoints.length },
            results,
            skipped,
            env,
            singleRun: true,
          },
          null,
          2,
        ),
      );
    } else console.log(markdown(series, results, env, skipped));
    if (keep) log(`kept: scratch (repositories) in ${root}`);
    if (keep || values.series !== undefined)
      log(`series kept in ${seriesDir}; re-run against it: node dist/bench/store-vs-peers.js --series ${seriesDir}`);
    const bad = results.filter((r) => !r.identical);
    for (const r of bad)
      log(
        `store-vs-peers: FAILED: ${r.id} restored the last checkpoint NOT byte-identical: ${r.mismatches.join('; ')}`,
      );
    return bad.length === 0 ? 0 : 1;
  } finally {
    cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`store-vs-peers: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof BenchError ? err.exitCode : 4);
  },
);
