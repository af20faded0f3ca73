// The hot local copy (targetOptions.hotCopy): the newest committed checkpoint's RAM stream and disk copy kept as plain
// files in the session folder (moved in by the host that took it), so a restore reads them instead of rebuilding them
// from the store, but only once each file's SHA-256 (hashed as a stream) matched the part digest the store's manifest
// records, and QEMU then reads that same file, checked unchanged (inode, size, mtime, ctime) before the guest runs.
// Anything else falls back to the store.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
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

/** A verified hot copy file and the identity it had when hashed (a change to it moves its ctime). */
export interface HotFile {
  file: string;
  identity: string;
}

/** `file`'s identity: inode, size, modification and change times (ns); a write or a rename onto the path changes it. */
async function identityOf(file: string): Promise<string> {
  return (await statIdentity(file)).identity;
}

/** `file`'s identity and its size, from one stat. */
async function statIdentity(file: string): Promise<{ identity: string; size: number }> {
  const s = await stat(file, { bigint: true });
  return { identity: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, size: Number(s.size) };
}

/**
 * Read buffers for hashing, 1 MiB each, allocated (and so touched) when this module loads, before any restore: a read
 * stream's fresh buffer per chunk costs a first touch of every page here (~16 us a page on this Firecracker guest,
 * ~200 ms for a 55 MB copy, against ~50 ms read into touched pages). Parts may be checked at once: one buffer each.
 */
const hashBuffers: Buffer[] = [Buffer.alloc(1 << 20), Buffer.alloc(1 << 20)];

/** SHA-256 of `file`, read once through a reused 1 MiB buffer (no whole-file buffer, no fresh pages per read). */
async function sha256File(file: string): Promise<string> {
  const buf = hashBuffers.pop() ?? Buffer.alloc(1 << 20);
  const fh = await open(file, 'r');
  try {
    const hash = createHash('sha256');
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
    hashBuffers.push(buf);
  }
}

/** `part`'s hot copy, hashed as a stream and checked against the store's size and digest; or why it cannot be used. */
async function verified(
  dir: string,
  source: CheckpointSource,
  part: string,
  unchecked: boolean,
): Promise<HotFile | { reason: string }> {
  const file = path.join(seqDir(dir, source.seq), part);
  const digest = source.digest?.(part);
  if (digest === undefined && !unchecked) return { reason: 'the manifest has no part digest' };
  if (!existsSync(file)) return { reason: 'no hot copy of this checkpoint' };
  const { identity, size } = await statIdentity(file);
  if (unchecked) return { file, identity };
  if (source.size !== undefined && size !== source.size(part)) return { reason: 'size differs' };
  if ((await sha256File(file)) !== digest) return { reason: 'digest mismatch' };
  // written while we hashed it: what we hashed may not be what the file holds
  if ((await identityOf(file)) !== identity) return { reason: 'changed while verified' };
  return { file, identity };
}

/** A restore's source over the hot copy: the verified files by part, and a check that none changed since. */
export interface HotSource {
  source: CheckpointSource;
  use: HotCopyUse;
  /** The verified file of each part served from the hot copy (QEMU may read it itself: `exec:cat`). */
  files: ReadonlyMap<string, string>;
  /** The parts whose file changed since it was verified (call it once QEMU has read them, before the guest runs). */
  changed(): Promise<string[]>;
}

/**
 * A source that serves `parts` from the verified hot copy of `source`'s checkpoint and the rest from the store. Every
 * hot part is hashed here (read once, as a stream) before the caller hands any byte to QEMU, which then reads the same
 * file; `changed()` tells whether a file moved on between the check and that read.
 */
export async function hotSource(
  dir: string,
  source: CheckpointSource,
  parts: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<HotSource> {
  const unchecked = env[HOT_COPY_UNCHECKED] === '1';
  const hot = new Map<string, HotFile>();
  const use: HotCopyUse = { hot: [], fellBack: [] };
  for (const part of parts.filter((p) => source.parts().includes(p))) {
    const got = await verified(dir, source, part, unchecked);
    if ('file' in got) {
      hot.set(part, got);
      use.hot.push(part);
    } else use.fellBack.push({ part, reason: got.reason });
  }
  const fileOf = (name: string): string | undefined => hot.get(name)?.file;
  const wrapped: CheckpointSource = {
    seq: source.seq,
    step: source.step,
    parts: () => source.parts(),
    get: (name) => {
      const f = fileOf(name);
      return f === undefined ? source.get(name) : readFile(f);
    },
    stream: (name) => {
      const f = fileOf(name);
      return f === undefined ? source.stream(name) : createReadStream(f, { highWaterMark: 1 << 20 });
    },
    writeFile: async (name, file) => {
      const f = fileOf(name);
      if (f === undefined) return source.writeFile(name, file);
      await copyFile(f, file);
      await chmod(file, 0o600);
    },
  };
  const changed = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const [part, h] of hot) if ((await identityOf(h.file).catch(() => 'gone')) !== h.identity) out.push(part);
    return out;
  };
  return { source: wrapped, use, files: new Map([...hot].map(([k, v]) => [k, v.file])), changed };
}

/**
 * The source a restore reads: with `enabled`, the hot copy's verified parts over the store's (`used` says which and
 * why a part fell back); otherwise the store itself (`used`: `store`, no files).
 */
export async function restoreSource(
  enabled: boolean,
  sessionDir: string,
  source: CheckpointSource,
): Promise<HotSource & { used: string }> {
  if (!enabled) {
    const use = { hot: [], fellBack: [] };
    return { source, use, used: 'store', files: new Map(), changed: () => Promise.resolve([]) };
  }
  const dir = hotCopyDir(sessionDir);
  const hot = await hotSource(dir, source, ['ram', 'devstate', 'disk']);
  // Pending copies of hosts killed before their commit: every other host of the session is gone by now.
  await sweepPending(dir);
  return { ...hot, used: describeUse(hot.use) };
}
