// Durable file primitives: fsync a directory, write a small file atomically (private temp name), remove files, make
// folders that survive a power loss.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

/**
 * TEST-ONLY: SOAK_TEST_NO_FSYNC_BEFORE_RENAME=1 builds a broken store whose files are renamed into place without their
 * data fsynced first (the negative control of the power-loss nemesis: SIGKILL cannot see it, a power loss must).
 * Read here and nowhere else; nothing sets it in normal use.
 */
export const TEST_NO_FSYNC_BEFORE_RENAME = 'SOAK_TEST_NO_FSYNC_BEFORE_RENAME';

/** fsync a file's data before a rename publishes it (skipped only under the test-only switch above). */
export function fsyncBeforeRename(fd: number): void {
  if (process.env[TEST_NO_FSYNC_BEFORE_RENAME] === '1') return;
  fsyncSync(fd);
}

/** write(2) as writeAll calls it: bytes [off, off + len) of `data`; returns how many it wrote. */
export type WriteFn = (fd: number, data: Uint8Array, off: number, len: number) => number;

/**
 * Write all of `data` at `fd`'s position: write(2) may write less than asked (a disk that fills up mid-write), and a
 * short write taken for a whole one leaves a hole that a later fsync and rename would publish. Throws what write
 * throws, or an error when a write makes no progress. `write` is a test seam (default: fs.writeSync).
 */
export function writeAll(fd: number, data: Uint8Array, write: WriteFn = writeSync): void {
  for (let off = 0; off < data.length;) {
    const n = write(fd, data, off, data.length - off);
    if (!(n > 0)) throw new Error(`write made no progress after ${off} of ${data.length} bytes`);
    off += n;
  }
}

/** mkdir -p `dir`, then fsync the parent of every folder it created, so they survive a power loss. */
export function mkdirDurable(dir: string): void {
  const first = mkdirSync(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    fsyncDir(path.dirname(d));
    if (d === path.resolve(first)) break;
  }
}

/** fsync a directory so a rename or create inside it survives a crash. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * A temp name beside `file` that nobody can guess (64 random bits), so nothing can be planted there in advance.
 * Keeps the `.tmp-` marker `store gc` sweeps up after a crash.
 */
export function tempPathFor(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.tmp-${randomBytes(8).toString('hex')}`);
}

/**
 * Write `data` to `file` atomically: a fresh temp file in the same dir (created with O_EXCL, so a symlink or file
 * already at that name is never followed nor reused: the write fails instead), fsync, rename, fsync the dir.
 * Renaming replaces a symlink at `file` itself rather than writing through it. `always`: fsync even under the
 * test-only no-fsync switch (a file that is not the store's data, such as its lock files, which the switch must not
 * break).
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, opts: { always?: boolean } = {}): void {
  const tmp = tempPathFor(file);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data) : data);
      if (opts.always === true) fsyncSync(fd);
      else fsyncBeforeRename(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true }); // removes the temp file (or whatever replaced it), never a symlink's target
    throw err;
  }
  fsyncDir(path.dirname(file));
}

/**
 * Create `file` with `data` only if no file has that name, atomically and whole: the data goes to a fresh temp file
 * (fsynced), which is then hard-linked to `file` (link(2) fails when the name exists, even between two processes
 * racing for it), and the temp name goes. True when this call created `file`, false when something was there already.
 * A lock taker's primitive: a reader never sees the file empty or half written, even after a power cut.
 */
export function createFileExclusive(file: string, data: string): boolean {
  const tmp = tempPathFor(file);
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    try {
      writeAll(fd, Buffer.from(data));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    rmSync(tmp, { force: true });
  }
  fsyncDir(path.dirname(file));
  return true;
}

/** Remove `names` from `dir` (missing ones are fine), then fsync `dir` so the removals survive a crash. */
export function removeDurably(dir: string, names: readonly string[]): void {
  if (names.length === 0) return;
  for (const f of names) rmSync(path.join(dir, f), { force: true });
  fsyncDir(dir);
}
