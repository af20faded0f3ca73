// The coding workload's guest image (targetOptions.workload: coding): the base image's initramfs with a second cpio
// archive appended (the kernel unpacks both), holding the workload script, the source tree it builds and the compiler
// (Debian's tcc with the shared libraries it loads). Built on first use beside the base image, cached by a hash of
// everything in it, so the base image, its hash and its templates are untouched by the profile.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../../check/heartbeat.js';
import { makeTempDir, publishFile } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { sha256File } from './files.js';
import { type GuestImage, listTree, packCpio, vmImagesDir } from './image.js';
import { loadExeca } from './lazy-execa.js';

/** The guest workload profiles (vm-images/README.md): `steps` is the agent alone; `coding` adds vm-images/work/work.sh. */
export const WORKLOADS = ['steps', 'coding'] as const;
export type Workload = (typeof WORKLOADS)[number];

const TCC = '/usr/bin/tcc';
const TCC_LIB = '/usr/lib/x86_64-linux-gnu/tcc';
/** A booted guest's first full heartbeat must carry the workload's account when it runs one (else: a wrong image). */
export function requireWorkReport(workload: Workload, first: Heartbeat): void {
  if (workload === 'coding' && first.work === undefined)
    throw new TargetError('the coding workload is on, but the first full heartbeat carries no work report');
}

function workDir(): string {
  return path.join(vmImagesDir(), 'work');
}

/** The workload's own files (script, source tree), sorted. */
function workFiles(): string[] {
  const src = path.join(workDir(), 'proj', 'src');
  return [
    'work.sh',
    ...readdirSync(src)
      .sort()
      .map((f) => `proj/src/${f}`),
  ];
}

/** The compiler and the shared libraries the guest's loader needs for it (ldd), as absolute host paths. */
async function tccRuntime(): Promise<string[]> {
  if (!existsSync(TCC)) throw new TargetError(`the coding workload needs ${TCC}: install the Debian package tcc`);
  const execa = await loadExeca();
  const r = await execa('ldd', [TCC], { timeout: 10_000 });
  const libs = r.stdout
    .split('\n')
    .map((l) => /=>\s*(\/\S+)/.exec(l)?.[1] ?? /^\s*(\/\S+)/.exec(l)?.[1])
    .filter((p): p is string => p !== undefined);
  return [TCC, ...libs.sort()];
}

/** tcc's own files (its headers and runtime library for x86-64; the i386 one left out), sorted. */
function libTree(): string[] {
  if (!existsSync(TCC_LIB)) return [];
  return listTree(TCC_LIB)
    .map((rel) => path.join(TCC_LIB, rel))
    .filter((p) => statSync(p).isFile() && !path.basename(p).startsWith('i386'));
}

/** The coding image's cache key: the base image, the workload's files, the compiler and its libraries. */
function workHash(base: GuestImage, runtime: string[]): string {
  const h = createHash('sha256').update(`work:1\n${base.hash}\n`);
  for (const f of workFiles()) h.update(`${f}\n`).update(readFileSync(path.join(workDir(), f)));
  for (const f of [...runtime, ...libTree()]) h.update(`${f}\n`).update(readFileSync(f));
  return h.digest('hex').slice(0, 16);
}

function codingFiles(base: GuestImage, key: string): { cpio: string; json: string } {
  const dir = path.dirname(base.initramfs);
  return { cpio: path.join(dir, `initramfs-coding-${key}.cpio`), json: path.join(dir, `coding-${key}.json`) };
}

/** The cache key of `base`'s coding image as this checkout would build it now; undefined when tcc is not installed. */
export async function codingKey(base: GuestImage): Promise<string | undefined> {
  return existsSync(TCC) ? workHash(base, await tccRuntime()) : undefined;
}

/** The coding profile's image for `base`: built now (a few seconds) unless cached. Same kernel, its own image hash. */
export async function codingImage(base: GuestImage): Promise<GuestImage> {
  const runtime = await tccRuntime();
  const key = workHash(base, runtime);
  const { cpio, json } = codingFiles(base, key);
  if (existsSync(json) && existsSync(cpio)) {
    const { hash } = JSON.parse(readFileSync(json, 'utf8')) as { hash: string };
    return { ...base, initramfs: cpio, hash };
  }
  const tmp = makeTempDir(path.join(path.dirname(cpio), `coding-${key}`));
  try {
    const overlay = path.join(tmp, 'overlay.cpio');
    await packOverlay(path.join(tmp, 'root'), runtime, overlay);
    const joined = path.join(tmp, 'initramfs.cpio');
    writeFileSync(joined, Buffer.concat([readFileSync(base.initramfs), readFileSync(overlay)]));
    const hash = createHash('sha256')
      .update(await sha256File(base.kernel))
      .update(await sha256File(joined))
      .digest('hex');
    publishFile(joined, cpio);
    const meta = path.join(tmp, 'coding.json');
    writeFileSync(meta, `${JSON.stringify({ hash, base: base.hash }, null, 2)}\n`);
    publishFile(meta, json);
    return { ...base, initramfs: cpio, hash };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The cached coding image for `base`, if built (synchronous, never throws: for describe() before a boot). */
export function cachedCodingImage(base: GuestImage): GuestImage | undefined {
  try {
    const dir = path.dirname(base.initramfs);
    const built = readdirSync(dir).filter((f) => /^coding-[0-9a-f]+\.json$/.test(f));
    // the newest, if an older recipe's is still there (a build checks the recipe; this preview cannot, synchronously)
    const json = built.sort((a, b) => statSync(path.join(dir, b)).mtimeMs - statSync(path.join(dir, a)).mtimeMs)[0];
    if (json === undefined) return undefined;
    const { hash } = JSON.parse(readFileSync(path.join(dir, json), 'utf8')) as { hash: string };
    const cpio = path.join(dir, `initramfs-${json.replace(/\.json$/, '.cpio')}`);
    return existsSync(cpio) ? { ...base, initramfs: cpio, hash } : undefined;
  } catch {
    return undefined;
  }
}

/** Stage the overlay (script as /bin/work, the source tree as a tar.gz, tcc and its libraries) and pack it as cpio. */
async function packOverlay(root: string, runtime: string[], out: string): Promise<void> {
  const execa = await loadExeca();
  const put = (from: string, to: string, mode = 0o644): void => {
    mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
    copyFileSync(from, path.join(root, to));
    chmodSync(path.join(root, to), mode);
  };
  put(path.join(workDir(), 'work.sh'), 'bin/work', 0o755);
  for (const f of runtime) put(f, f.slice(1), 0o755);
  for (const f of libTree()) put(f, f.slice(1));
  mkdirSync(path.join(root, 'usr/share/work'), { recursive: true });
  const tarball = path.join(root, 'usr/share/work/proj.tar.gz');
  await execa(
    'sh',
    [
      '-c',
      'tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$1" -cf - src | gzip -n -9 > "$2"',
      'tar',
      path.join(workDir(), 'proj'),
      tarball,
    ],
    { timeout: 30_000 },
  );
  await packCpio(root, out);
}
