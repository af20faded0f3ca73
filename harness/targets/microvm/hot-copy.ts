// The hot local copy (targetOptions.hotCopy): the newest committed checkpoint's RAM stream and disk copy kept as plain
// files in the session folder (moved in by the host that took it), so a restore reads them instead of rebuilding them
// from the store. The honesty line: the guest never runs on bytes that did not verify. Each file's SHA-256 (hashed as
// a stream) must match the part digest the store's manifest records, and the file must be unchanged (device, inode,
// size, mtime, ctime) from before its hash until QEMU has read it. The RAM stream is hashed while QEMU loads that same
// file (restore-ram.ts): only `cont` waits for its verdict, and a refused copy costs that QEMU, not the guest's state.
// Anything else falls back to the store.
import { createReadStream, existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { CheckpointSource } from '../../store/types.js';
import { digestRefusal, identityOf, statIdentity } from '../guest/files.js';
import type { RamCaptureMode } from './ram.js';

/** The checks' warm-up, for a standby (guest/files.ts). */
export { warmHashing } from '../guest/files.js';

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
 * After checkpoint `seq` was stored, before its commit: move its part files into the folder named by `seq` (through
 * this host's pending folder, so the named folder appears whole). Named before the commit, so a kill between the
 * manifest's commit and this host's next step still finds the committed checkpoint's copy. A host killed before its
 * commit leaves a folder of a seq that never became visible: restores read the newest committed seq's folder, which
 * stays (only `commitHotCopy` drops older ones), and the next checkpoint given that seq replaces it before its commit.
 */
export async function stageHotCopy(dir: string, parts: KeptParts, seq: number): Promise<void> {
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
  const named = seqDir(dir, seq);
  await rm(named, { recursive: true, force: true });
  await rename(pending, named);
}

/** Checkpoint `seq` was committed: drop every other entry (bounded disk use), if its copy was staged. */
export async function commitHotCopy(dir: string, seq: number): Promise<void> {
  const named = seqDir(dir, seq);
  if (!existsSync(named)) return;
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

/**
 * A hot copy file that passed the cheap checks (it exists, the manifest has its digest, the size matches), the identity
 * it had then, and its digest check: `refusal()` settles to why its bytes are not the checkpoint's, or undefined.
 */
export interface HotFile {
  file: string;
  identity: string;
  /** The digest check's verdict (started by the first call: an overlapped part's hash begins with QEMU's load). */
  refusal: () => Promise<string | undefined>;
}

/**
 * `part`'s hot copy after the cheap checks, or why it cannot be used. Its SHA-256 is hashed (one read, as a stream)
 * here, or (`overlap`) by the caller's first `refusal()`, while QEMU loads the same file.
 */
async function candidate(
  dir: string,
  source: CheckpointSource,
  part: string,
  unchecked: boolean,
  overlap: boolean,
): Promise<HotFile | { reason: string }> {
  const file = path.join(seqDir(dir, source.seq), part);
  const digest = source.digest?.(part);
  if (digest === undefined && !unchecked) return { reason: 'the manifest has no part digest' };
  if (!existsSync(file)) return { reason: 'no hot copy of this checkpoint' };
  const { identity, size } = await statIdentity(file);
  if (unchecked || digest === undefined) return { file, identity, refusal: () => Promise.resolve(undefined) };
  if (source.size !== undefined && size !== source.size(part)) return { reason: 'size differs' };
  if (overlap) {
    let started: Promise<string | undefined> | undefined;
    return { file, identity, refusal: () => (started ??= digestRefusal(file, digest, identity)) };
  }
  const reason = await digestRefusal(file, digest, identity);
  return reason === undefined ? { file, identity, refusal: () => Promise.resolve(undefined) } : { reason };
}

/** A restore's source over the hot copy: the hot files by part, and the checks the guest must pass before it runs. */
export interface HotSource {
  source: CheckpointSource;
  use: HotCopyUse;
  /** The file of each part served from the hot copy (QEMU may read it itself: `exec:cat`). */
  files: ReadonlyMap<string, string>;
  /**
   * Why `part`'s bytes are not the checkpoint's (its digest, hashed by the first call for an overlapped part, or its
   * file changed since its identity was taken), or undefined when they are: the guest runs only once this said so.
   */
  refusal(part: string): Promise<string | undefined>;
  /** The parts whose file changed since it was checked (call it once QEMU has read them, before the guest runs). */
  changed(): Promise<string[]>;
}

/**
 * A source that serves `parts` from the hot copy of `source`'s checkpoint and the rest from the store. Every hot part
 * is hashed here (read once, as a stream) before the caller hands any byte of it to QEMU, except the `overlap` parts:
 * their hash starts with the caller's first `refusal(part)`, called as QEMU starts loading the same file
 * (restore-ram.ts), and it must say undefined before `cont`.
 */
export async function hotSource(
  dir: string,
  source: CheckpointSource,
  parts: string[],
  env: NodeJS.ProcessEnv = process.env,
  overlap: readonly string[] = [],
): Promise<HotSource> {
  const unchecked = env[HOT_COPY_UNCHECKED] === '1';
  const hot = new Map<string, HotFile>();
  const use: HotCopyUse = { hot: [], fellBack: [] };
  for (const part of parts.filter((p) => source.parts().includes(p))) {
    const got = await candidate(dir, source, part, unchecked, overlap.includes(part));
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
    stream: (name, opts) => {
      const f = fileOf(name);
      return f === undefined ? source.stream(name, opts) : createReadStream(f, { highWaterMark: 1 << 20 });
    },
    writeFile: async (name, file) => {
      const f = fileOf(name);
      if (f === undefined) return source.writeFile(name, file);
      await copyFile(f, file);
      await chmod(file, 0o600);
    },
  };
  const refusal = async (part: string): Promise<string | undefined> => {
    const h = hot.get(part);
    if (h === undefined) return 'no hot copy of this part';
    return (await h.refusal()) ?? ((await identityOf(h.file)) === h.identity ? undefined : 'changed after its check');
  };
  const changed = async (): Promise<string[]> => {
    const out: string[] = [];
    for (const [part, h] of hot) if ((await identityOf(h.file)) !== h.identity) out.push(part);
    return out;
  };
  return { source: wrapped, use, files: new Map([...hot].map(([k, v]) => [k, v.file])), refusal, changed };
}

/** `use` with `part` moved from the hot copy to the store, for `reason` (a hot part refused after QEMU loaded it). */
export function demote(use: HotCopyUse, part: string, reason: string): HotCopyUse {
  return { hot: use.hot.filter((p) => p !== part), fellBack: [...use.fellBack, { part, reason }] };
}

/**
 * The source a restore reads: with `hotCopy`, the hot copy's parts over the store's (`used` says which and why a part
 * fell back; a stream mode's RAM is hashed only by `refusal('ram')`); otherwise the store itself (`store`, no files).
 */
export async function restoreSource(
  opts: { hotCopy: boolean; ramCapture: RamCaptureMode },
  sessionDir: string,
  source: CheckpointSource,
): Promise<HotSource & { used: string }> {
  if (!opts.hotCopy) {
    const use = { hot: [], fellBack: [] };
    const none = {
      files: new Map(),
      refusal: () => Promise.resolve('no hot copy'),
      changed: () => Promise.resolve([]),
    };
    return { source, use, used: 'store', ...none };
  }
  const dir = hotCopyDir(sessionDir);
  // the RAM stream QEMU reads itself (exec:cat) is hashed while it loads (restore-ram.ts); the rest before QEMU sees it
  const overlap = opts.ramCapture === 'stream' ? ['ram'] : [];
  const hot = await hotSource(dir, source, ['ram', 'devstate', 'disk'], process.env, overlap);
  // Pending copies of hosts killed before their commit: every other host of the session is gone by now.
  await sweepPending(dir);
  return { ...hot, used: describeUse(hot.use) };
}
