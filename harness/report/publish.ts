// Write a report folder crash-safely: its files go into a temp folder beside it, published (fsync, rename) under a free
// name (core/durable.ts).
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, publishDir } from '../core/durable.js';

/** The files of one report: path relative to the report folder -> content. */
export type ReportFiles = ReadonlyMap<string, string>;

/** Write `files` into the fresh folder `tmp` (publishDir fsyncs them). */
async function stage(tmp: string, files: ReportFiles): Promise<void> {
  for (const [rel, content] of files) {
    const file = path.join(tmp, rel);
    if (path.relative(tmp, file).startsWith('..') || path.isAbsolute(rel))
      throw new Error(`report file name escapes the report folder: ${rel}`);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content, { encoding: 'utf8', flag: 'wx', mode: 0o644 });
  }
}

/**
 * Publish `files` as reportsDir/<base>, or <base>-2, <base>-3... if taken. Never overwrites or deletes an existing
 * folder: a taken name (even one created concurrently) just moves on to the next suffix. Returns the final folder.
 */
export async function publishReport(reportsDir: string, base: string, files: ReportFiles): Promise<string> {
  await mkdir(reportsDir, { recursive: true });
  const dest = path.join(reportsDir, base);
  const tmp = makeTempDir(dest);
  try {
    await stage(tmp, files);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true });
    throw err;
  }
  return publishDir(tmp, dest, 'number')!;
}
