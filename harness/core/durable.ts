// Durable file primitives: temp names (unguessable, recording their maker), fsync a directory, write a small file
// atomically, publish a built file or folder (temp beside it, fsync, rename), remove files, durable mkdir.
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { processStart } from './proc.js';

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

/** This process as a temp name records it: `<pid>-<start time>` (`x` where /proc is not there). */
let maker: string | undefined;

/**
 * A temp name beside `file` (a file or a folder) that nobody can guess (64 random bits), so nothing can be planted
 * there in advance: `.<name>.tmp-<pid>-<start time>-<16 hex>`. It keeps the `.tmp-` marker `store gc` sweeps up after
 * a crash and records its maker, so a sweeper can tell a live writer's temp from a dead one's (tempMaker).
 */
export function tempPathFor(file: string): string {
  maker ??= `${process.pid}-${processStart(process.pid) ?? 'x'}`;
  return path.join(path.dirname(file), `.${path.basename(file)}${TEMP_MARK}${maker}-${randomBytes(8).toString('hex')}`);
}

const TEMP_MARK = '.tmp-';
const TEMP_NAME = /\.tmp-(\d+)-(\d+|x)-[0-9a-f]{16}$/;

/** Whether `name` is a temp name (it has the marker; earlier versions' too), and with `of`, one of a file named `of`. */
export function isTempName(name: string, of?: string): boolean {
  return of === undefined ? name.includes(TEMP_MARK) : name.startsWith(`.${of}${TEMP_MARK}`);
}

/**
 * The process that made temp name `name` (tempPathFor's), to judge with sameProcessAlive (core/proc.ts: pid and start
 * time, a zombie is gone); null when the name records none (not one of tempPathFor's).
 */
export function tempMaker(name: string): { pid: number; start: string | null } | null {
  const m = TEMP_NAME.exec(name);
  return m === null ? null : { pid: Number(m[1]), start: m[2] === 'x' ? null : m[2]! };
}

/** A fresh empty folder to build `dest` in, beside it (tempPathFor's name), created exclusively: never one already there. */
export function makeTempDir(dest: string): string {
  const tmp = tempPathFor(dest);
  mkdirSync(tmp, { mode: 0o755 }); // fails on anything at that name, a planted symlink included
  return tmp;
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

/** fsync every file and folder under `dir` (symlinks not followed), folders after what they hold. */
function fsyncTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) fsyncTree(p);
    else if (e.isFile()) fsyncFile(p);
  }
  fsyncDir(dir);
}

function fsyncFile(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Publish the finished file `tmp` (a tempPathFor name beside `dest`) as `dest`: fsync, rename, fsync the folder. */
export function publishFile(tmp: string, dest: string): void {
  try {
    fsyncFile(tmp);
    renameSync(tmp, dest);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  fsyncDir(path.dirname(dest));
}

/**
 * What publishDir does when `dest` exists: `refuse` (throws an EEXIST error), `number` (takes `dest-2`, `dest-3`...:
 * never replaces nor deletes a folder), `yield` (another process built it first: drops ours, returns null).
 */
export type IfTaken = 'refuse' | 'number' | 'yield';

const TAKEN = new Set(['EEXIST', 'ENOTEMPTY', 'ENOTDIR']);

/**
 * Publish the finished folder `tmp` (from makeTempDir(dest)) as `dest`: fsync all it holds, rename it into place, fsync
 * the parent; so no reader ever sees half a folder, even after a power cut. Returns the folder it became (null: yielded).
 * On any failure `tmp` is removed.
 */
export function publishDir(tmp: string, dest: string, ifTaken: IfTaken): string | null {
  try {
    fsyncTree(tmp);
    for (let k = 1; k <= 10_000; k++) {
      const to = k === 1 ? dest : `${dest}-${k}`;
      if (lstatSync(to, { throwIfNoEntry: false }) === undefined) {
        try {
          renameSync(tmp, to);
          fsyncDir(path.dirname(to));
          return to;
        } catch (err) {
          if (!TAKEN.has((err as NodeJS.ErrnoException).code ?? '')) throw err;
        }
      }
      if (ifTaken === 'refuse')
        throw Object.assign(new Error(`${dest} already exists: it is never replaced`), { code: 'EEXIST' });
      if (ifTaken === 'yield') {
        rmSync(tmp, { recursive: true, force: true });
        return null;
      }
    }
    throw new Error(`no free folder name for ${dest} after 10000 tries`);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
