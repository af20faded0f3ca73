// Write a report folder crash-safely: files go into a temp dir inside reportsDir, fsynced, then renamed to a free name.
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { fsyncDir } from '../core/durable.js';

/** Prefix of in-progress folders; the index ignores them (a crash can leave one behind, never a half report). */
export const TEMP_PREFIX = '.tmp-report-';

/** The files of one report: path relative to the report folder -> content. */
export type ReportFiles = ReadonlyMap<string, string>;

async function exists(p: string): Promise<boolean> {
  try {
    await lstat(p);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

async function writeDurable(file: string, content: string): Promise<void> {
  const handle = await open(file, 'wx', 0o644);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Write `files` into the fresh folder `tmp`, fsyncing every file and folder. */
async function stage(tmp: string, files: ReportFiles): Promise<void> {
  await mkdir(tmp);
  const dirs = new Set<string>([tmp]);
  for (const [rel, content] of files) {
    const file = path.join(tmp, rel);
    if (path.relative(tmp, file).startsWith('..') || path.isAbsolute(rel))
      throw new Error(`report file name escapes the report folder: ${rel}`);
    await mkdir(path.dirname(file), { recursive: true });
    dirs.add(path.dirname(file));
    await writeDurable(file, content);
  }
  for (const dir of [...dirs].reverse()) fsyncDir(dir);
}

/**
 * Publish `files` as reportsDir/<base>, or <base>-2, <base>-3... if taken. Never overwrites or deletes an existing
 * folder: a taken name (even one created concurrently) just moves on to the next suffix. Returns the final folder.
 */
export async function publishReport(reportsDir: string, base: string, files: ReportFiles): Promise<string> {
  await mkdir(reportsDir, { recursive: true });
  const tmp = path.join(reportsDir, `${TEMP_PREFIX}${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await stage(tmp, files);
    for (let k = 1; k <= 10_000; k++) {
      const dest = path.join(reportsDir, k === 1 ? base : `${base}-${k}`);
      if (await exists(dest)) continue;
      try {
        await rename(tmp, dest);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST' || code === 'ENOTEMPTY' || code === 'ENOTDIR') continue;
        throw err;
      }
      fsyncDir(reportsDir);
      return dest;
    }
    throw new Error(`no free report folder name for ${base} in ${reportsDir} after 10000 tries`);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
}
