// The hot local copy (targetOptions.hotCopy): the newest committed checkpoint's RAM stream and disk copy kept as plain
// files in the session folder, so a restore reads them instead of rebuilding them from the store, but only once each
// file's SHA-256 matched the part digest the store's manifest records. Anything else falls back to the store.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointSource } from '../../store/types.js';

/**
 * SOAK_TEST_HOT_COPY_UNCHECKED=1 (TEST-ONLY negative control): a hot copy is used without its size and digest check,
 * so a stale copy put under the newest checkpoint's name is loaded; the checker must catch the resumed state.
 */
export const HOT_COPY_UNCHECKED = 'SOAK_TEST_HOT_COPY_UNCHECKED';

/** The folder beside the session's other files (not in the store: gc and verify never see it). */
export function hotCopyDir(sessionDir: string): string {
  return path.join(sessionDir, 'hot-copy');
}

/** A checkpoint's folder: its seq, ten digits (as manifests are named). */
const seqDir = (dir: string, seq: number): string => path.join(dir, String(seq).padStart(10, '0'));

/** Files a checkpoint stored by name (scratch files it wrote while paused), kept as its hot copy once committed. */
export type KeptParts = Record<string, string>;

/**
 * After a checkpoint was stored, before its commit: move its part files into this host's pending folder (a host
 * killed before the commit leaves it behind; `commitHotCopy` and `sweepPending` remove it).
 */
export async function stageHotCopy(dir: string, parts: KeptParts): Promise<void> {
  const pending = path.join(dir, `pending-${process.pid}`);
  await rm(pending, { recursive: true, force: true });
  await mkdir(pending, { recursive: true, mode: 0o700 });
  for (const [name, file] of Object.entries(parts)) {
    if (!existsSync(file)) continue;
    const to = path.join(pending, name);
    await rename(file, to).catch(async (err: unknown) => {
      if ((err as { code?: string }).code !== 'EXDEV') throw err;
      await copyFile(file, to);
    });
  }
}

/** The staged checkpoint was committed as `seq`: name the copy by it and drop every other entry (bounded disk use). */
export async function commitHotCopy(dir: string, seq: number): Promise<void> {
  const pending = path.join(dir, `pending-${process.pid}`);
  if (!existsSync(pending)) return;
  const named = seqDir(dir, seq);
  await rm(named, { recursive: true, force: true });
  await rename(pending, named);
  await sweep(dir, path.basename(named));
}

/** Remove everything in the hot-copy folder but `keep` (a dead host's pending folder, older checkpoints). */
export async function sweep(dir: string, keep?: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const e of entries) if (e !== keep) await rm(path.join(dir, e), { recursive: true, force: true });
}

/** Remove the pending copies of hosts killed before their commit (their checkpoints never became visible). */
export async function sweepPending(dir: string): Promise<void> {
  const entries = await readdir(dir).catch(() => [] as string[]);
  for (const e of entries.filter((x) => x.startsWith('pending-')))
    await rm(path.join(dir, e), { recursive: true, force: true });
}

/**
 * Memory a warm standby set aside (and touched) for the hot copy it will read. On this machine (a Firecracker guest)
 * the first write to a fresh page costs ~16 us, so reading a 55 MB stream into a new buffer took ~220 ms; into pages
 * touched ahead, ~12 ms (CHANGELOG). One restore per host: the views are handed out once, then the memory is let go.
 */
let arena: { buf: Buffer; used: number } | undefined;

/**
 * Warm standby: set aside and touch memory for the newest hot copy's files (plus a quarter, as the next may be larger),
 * off the measured path. No copy yet: nothing set aside (the restore then allocates as it reads).
 */
export function reserveHotCopy(sessionDir: string): void {
  const dir = hotCopyDir(sessionDir);
  let newest: string | undefined;
  try {
    newest = readdirSync(dir)
      .filter((e) => /^\d{10}$/.test(e))
      .sort()
      .pop();
  } catch {
    return;
  }
  if (newest === undefined) return;
  let bytes = 0;
  for (const part of ['ram', 'devstate', 'disk']) {
    try {
      bytes += statSync(path.join(dir, newest, part)).size;
    } catch {
      // that part is not kept (RAM-only guest, stream mode)
    }
  }
  if (bytes === 0) return;
  const buf = Buffer.allocUnsafeSlow(Math.ceil((bytes * 1.25) / 4096) * 4096);
  buf.fill(0); // touch every page now
  arena = { buf, used: 0 };
}

/** `file` whole: into the standby's touched memory when it fits, else a new buffer. */
async function readWhole(file: string): Promise<Buffer> {
  const size = statSync(file).size;
  const a = arena;
  if (a === undefined || a.used + size > a.buf.length) return readFile(file);
  const view = a.buf.subarray(a.used, a.used + size);
  const fd = openSync(file, 'r');
  try {
    let off = 0;
    while (off < size) {
      const n = readSync(fd, view, off, Math.min(1 << 20, size - off), off);
      if (n === 0) break;
      off += n;
    }
    if (off < size) return await readFile(file); // changed under us: the digest check decides on what readFile sees
  } finally {
    closeSync(fd);
  }
  a.used += size;
  return view;
}

/** Where each part of a restore came from, and why a part that had a hot copy slot fell back to the store. */
export interface HotCopyUse {
  /** Parts read from the verified hot copy. */
  hot: string[];
  /** Parts read from the store, with the reason (no copy, size, digest, old manifest): few distinct texts, to count. */
  fellBack: Array<{ part: string; reason: string }>;
}

/** One line for the restore's record: `hot`, `store` or `store (ram: digest mismatch)`. */
export function describeUse(use: HotCopyUse): string {
  if (use.fellBack.length === 0) return 'hot';
  const why = use.fellBack.map((f) => `${f.part}: ${f.reason}`).join('; ');
  return use.hot.length === 0 ? `store (${why})` : `hot+store (${why})`;
}

/** `part`'s hot copy, read whole and checked against the store's digest; or why it cannot be used. */
async function verified(
  dir: string,
  source: CheckpointSource,
  part: string,
  unchecked: boolean,
): Promise<Buffer | { reason: string }> {
  const file = path.join(seqDir(dir, source.seq), part);
  const digest = source.digest?.(part);
  if (digest === undefined && !unchecked) return { reason: 'the manifest has no part digest' };
  if (!existsSync(file)) return { reason: 'no hot copy of this checkpoint' };
  const bytes = await readWhole(file);
  if (unchecked) return bytes;
  if (source.size !== undefined && bytes.length !== source.size(part)) return { reason: 'size differs' };
  if (createHash('sha256').update(bytes).digest('hex') !== digest) return { reason: 'digest mismatch' };
  return bytes;
}

/**
 * A source that serves `parts` from the verified hot copy of `source`'s checkpoint and the rest from the store. Every
 * hot part is read and hashed here, before the caller hands any byte to QEMU.
 */
export async function hotSource(
  dir: string,
  source: CheckpointSource,
  parts: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ source: CheckpointSource; use: HotCopyUse }> {
  const unchecked = env[HOT_COPY_UNCHECKED] === '1';
  const hot = new Map<string, Buffer>();
  const use: HotCopyUse = { hot: [], fellBack: [] };
  for (const part of parts.filter((p) => source.parts().includes(p))) {
    const got = await verified(dir, source, part, unchecked);
    if (Buffer.isBuffer(got)) {
      hot.set(part, got);
      use.hot.push(part);
    } else use.fellBack.push({ part, reason: got.reason });
  }
  const wrapped: CheckpointSource = {
    seq: source.seq,
    step: source.step,
    parts: () => source.parts(),
    get: (name) => {
      const b = hot.get(name);
      return b === undefined ? source.get(name) : Promise.resolve(b);
    },
    stream: (name) => {
      const b = hot.get(name);
      return b === undefined ? source.stream(name) : pieces(b);
    },
    writeFile: (name, file) => {
      const b = hot.get(name);
      return b === undefined ? source.writeFile(name, file) : writeFile(file, b, { mode: 0o600 });
    },
  };
  return { source: wrapped, use };
}

/** A buffer as ~1 MiB views, as the store's reader streams. */
async function* pieces(b: Buffer): AsyncGenerator<Buffer> {
  await Promise.resolve();
  for (let off = 0; off < b.length; off += 1 << 20) yield b.subarray(off, off + (1 << 20));
}

/**
 * The source a restore reads: with `enabled`, the hot copy's verified parts over the store's (`used` says which and
 * why a part fell back); otherwise the store itself (`used`: `store`).
 */
export async function restoreSource(
  enabled: boolean,
  sessionDir: string,
  source: CheckpointSource,
): Promise<{ source: CheckpointSource; used: string }> {
  if (!enabled) return { source, used: 'store' };
  const dir = hotCopyDir(sessionDir);
  const hot = await hotSource(dir, source, ['ram', 'devstate', 'disk']);
  arena = undefined; // the views live as long as this restore's source; the rest of the host does not need them
  // Pending copies of hosts killed before their commit: every other host of the session is gone by now.
  await sweepPending(dir);
  return { source: hot.source, used: describeUse(hot.use) };
}
