// Guest image build: Debian cloud kernel + busybox initramfs with init, the static C agent and the guest-state probe,
// cached by recipe hash.
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { makeTempDir, publishDir } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { repoRoot } from '../../core/repo-root.js';
import { sha256File } from './files.js';
import { loadExeca } from './lazy-execa.js';
import { PROBE_SOURCES } from './probe-build.js';

/** Kernel modules the init loads, in this order, for the virtio-blk disk (ext4 is built into the cloud kernel). */
export const GUEST_MODULES = [
  'drivers/virtio/virtio_ring.ko',
  'drivers/virtio/virtio.ko',
  'drivers/virtio/virtio_mmio.ko',
  'drivers/block/virtio_blk.ko',
] as const;

/** Kernel modules in the image that init does not load: clock-sync's TEST-ONLY `drop-listeners` loads them. */
const DIAG_MODULES = ['net/ipv4/inet_diag.ko', 'net/ipv4/tcp_diag.ko'] as const;

const KERNEL_METAPACKAGE = 'linux-image-cloud-amd64';
const AGENT_SOURCES = [
  'agent.c',
  'tool.c',
  'sha256.c',
  'effects.c',
  'sha256.h',
  'tool.h',
  'effects.h',
  'clock-sync.c',
] as const;
const BUSYBOX = '/bin/busybox';
const RECIPE_VERSION = '1';

export interface GuestImage {
  kernel: string;
  initramfs: string;
  /** Content hash of kernel + initramfs (sha256 hex). */
  hash: string;
  kernelPackage: string;
  /** True when served from vm-images/build/ without building. */
  cached?: boolean;
}

/**
 * The cached image for the current recipe, if built (synchronous: used by describe()). Its files are taken from the
 * folder the manifest is in, not the paths it records: a moved or shared checkout's cache stays usable.
 */
export function cachedImage(): GuestImage | undefined {
  const dir = path.join(vmImagesDir(), 'build', `image-${recipeHash()}`);
  const manifest = path.join(dir, 'image.json');
  if (!existsSync(manifest)) return undefined;
  const image = JSON.parse(readFileSync(manifest, 'utf8')) as GuestImage;
  return { ...image, kernel: path.join(dir, 'vmlinuz'), initramfs: path.join(dir, 'initramfs.cpio'), cached: true };
}

export function vmImagesDir(): string {
  return path.join(repoRoot(), 'vm-images');
}

/** Hash of everything that goes into the image except the kernel package (resolved at build time). */
export function recipeHash(): string {
  const dir = vmImagesDir();
  const h = createHash('sha256').update(
    `recipe:${RECIPE_VERSION}\n${KERNEL_METAPACKAGE}\n${[...GUEST_MODULES, ...DIAG_MODULES].join('\n')}\n`,
  );
  for (const f of ['init', ...[...AGENT_SOURCES, ...PROBE_SOURCES].map((s) => `agent/${s}`)]) {
    h.update(`${f}\n`).update(readFileSync(path.join(dir, f)));
  }
  if (existsSync(BUSYBOX)) h.update(readFileSync(BUSYBOX));
  return h.digest('hex').slice(0, 16);
}

/** Build (or return the cached) guest image. */
export async function buildImage(opts: { force?: boolean } = {}): Promise<GuestImage> {
  const build = path.join(vmImagesDir(), 'build');
  const out = path.join(build, `image-${recipeHash()}`);
  if (!opts.force) {
    const cached = cachedImage();
    if (cached !== undefined) return cached;
  }
  await requireTools();
  mkdirSync(build, { recursive: true });
  const kroot = await fetchKernel(build);
  const tmp = makeTempDir(out); // fresh and unguessable: never an existing folder or a planted symlink
  try {
    copyFileSync(kroot.vmlinuz, path.join(tmp, 'vmlinuz'));
    await buildInitramfs(kroot.modulesDir, path.join(tmp, 'initramfs.cpio'), tmp);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  const hash = createHash('sha256')
    .update(await sha256File(path.join(tmp, 'vmlinuz')))
    .update(await sha256File(path.join(tmp, 'initramfs.cpio')))
    .digest('hex');
  const image: GuestImage = {
    kernel: path.join(out, 'vmlinuz'),
    initramfs: path.join(out, 'initramfs.cpio'),
    hash,
    kernelPackage: kroot.pkg,
  };
  writeFileSync(path.join(tmp, 'image.json'), `${JSON.stringify(image, null, 2)}\n`);
  if (opts.force) rmSync(out, { recursive: true, force: true });
  let published: string | null;
  try {
    published = publishDir(tmp, out, 'yield');
  } catch (err) {
    throw new TargetError(`cannot move the built image into ${out}: ${(err as Error).message}`, { cause: err });
  }
  if (published === null) {
    // Another process finished the same recipe first (concurrent hosts or shards): use its image.
    const theirs = cachedImage();
    if (theirs === undefined) throw new TargetError(`cannot move the built image into ${out}: another build holds it`);
    return theirs;
  }
  return { ...image, cached: false };
}

async function requireTools(): Promise<void> {
  const execa = await loadExeca();
  const need: Array<[string, string]> = [
    ['gcc', 'gcc libc6-dev'],
    ['cpio', 'cpio'],
    ['apt-get', 'apt'],
    ['dpkg', 'dpkg'],
  ];
  for (const [tool, pkg] of need) {
    const r = await execa('which', [tool], { reject: false, timeout: 5000 });
    if (r.exitCode !== 0) throw new TargetError(`image build needs "${tool}": install the Debian package(s) ${pkg}`);
  }
  if (!existsSync(BUSYBOX))
    throw new TargetError(`image build needs ${BUSYBOX}: install the Debian package busybox-static`);
}

/** Resolve the real kernel package behind the metapackage, download and unpack it once into build/. */
async function fetchKernel(build: string): Promise<{ pkg: string; vmlinuz: string; modulesDir: string }> {
  const execa = await loadExeca();
  const deps = await execa('apt-cache', ['depends', KERNEL_METAPACKAGE], { timeout: 60_000 });
  const pkg = /Depends:\s*(linux-image-\S+-cloud-amd64)/.exec(deps.stdout)?.[1];
  if (pkg === undefined)
    throw new TargetError(
      `apt-cache depends ${KERNEL_METAPACKAGE} named no linux-image-*-cloud-amd64 package (run apt-get update?)`,
    );
  const kroot = path.join(build, `kroot-${pkg}`);
  const version = pkg.replace(/^linux-image-/, '');
  const vmlinuz = path.join(kroot, 'boot', `vmlinuz-${version}`);
  const modulesDir = path.join(kroot, 'lib', 'modules', version, 'kernel');
  if (!existsSync(vmlinuz)) {
    const debDir = path.join(build, 'deb');
    mkdirSync(debDir, { recursive: true });
    let deb = readdirSync(debDir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
    if (deb === undefined) {
      await execa('apt-get', ['download', pkg], { cwd: debDir, timeout: 300_000 });
      deb = readdirSync(debDir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'));
    }
    if (deb === undefined) throw new TargetError(`apt-get download ${pkg} produced no .deb in ${debDir}`);
    const unpack = makeTempDir(kroot);
    try {
      await execa('dpkg', ['-x', path.join(debDir, deb), unpack], { timeout: 120_000 });
    } catch (err) {
      rmSync(unpack, { recursive: true, force: true });
      throw err;
    }
    publishDir(unpack, kroot, 'yield'); // null: unpacked concurrently by another process
    if (!existsSync(vmlinuz)) throw new TargetError(`unpacking ${deb} into ${kroot} failed`);
  }
  return { pkg, vmlinuz, modulesDir };
}

/** Stage busybox, init, the agent and the modules; pack them as a reproducible newc cpio. */
async function buildInitramfs(modulesDir: string, outFile: string, tmp: string): Promise<void> {
  const execa = await loadExeca();
  const root = path.join(tmp, 'root');
  for (const d of ['bin', 'proc', 'sys', 'dev', 'lib/modules', 'work'])
    mkdirSync(path.join(root, d), { recursive: true });
  copyFileSync(BUSYBOX, path.join(root, 'bin', 'busybox'));
  copyFileSync(path.join(vmImagesDir(), 'init'), path.join(root, 'init'));
  chmodSync(path.join(root, 'init'), 0o755);
  chmodSync(path.join(root, 'bin', 'busybox'), 0o755);
  const agentDir = path.join(vmImagesDir(), 'agent');
  await execa(
    'gcc',
    [
      '-O2',
      '-static',
      '-Wall',
      '-Wextra',
      '-o',
      path.join(root, 'bin', 'agent'),
      ...['agent.c', 'tool.c', 'sha256.c', 'effects.c'].map((f) => path.join(agentDir, f)),
    ],
    { timeout: 120_000 },
  );
  const probe = PROBE_SOURCES.filter((f) => f.endsWith('.c')).map((f) => path.join(agentDir, f));
  const probeBin = path.join(root, 'bin', 'probe'); // started by init with soak.probe=1 (docs/what-survives.md)
  await execa('gcc', ['-O2', '-static', '-Wall', '-Wextra', '-o', probeBin, ...probe], { timeout: 120_000 });
  const clockSync = [path.join(root, 'bin', 'clock-sync'), path.join(agentDir, 'clock-sync.c')]; // soak.clock=1
  await execa('gcc', ['-O2', '-static', '-Wall', '-Wextra', '-o', ...clockSync], { timeout: 120_000 });
  for (const m of [...GUEST_MODULES, ...DIAG_MODULES]) {
    const src = path.join(modulesDir, m);
    if (!existsSync(src)) throw new TargetError(`kernel module ${m} not found under ${modulesDir}`);
    copyFileSync(src, path.join(root, 'lib', 'modules', path.basename(m)));
  }
  await packCpio(root, outFile);
  rmSync(root, { recursive: true, force: true });
}

/** Pack the tree under `root` as a reproducible newc cpio (owner 0:0, mtime 0, names sorted). */
export async function packCpio(root: string, outFile: string): Promise<void> {
  const execa = await loadExeca();
  const entries = listTree(root);
  for (const e of entries) utimesSync(path.join(root, e), 0, 0);
  await execa('cpio', ['-o', '-H', 'newc', '-R', '0:0', '--reproducible', '--quiet'], {
    cwd: root,
    input: `${entries.join('\n')}\n`,
    stdout: { file: outFile },
    timeout: 60_000,
  });
}

/** Every file and folder under `root`, as paths relative to it, names sorted at each level. */
export function listTree(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    const p = rel === '' ? name.name : `${rel}/${name.name}`;
    out.push(p);
    if (name.isDirectory()) out.push(...listTree(root, p));
  }
  return out;
}
