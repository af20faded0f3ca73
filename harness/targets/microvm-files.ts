// Small file helpers for the microvm target: locate the repository, hash files, copy with fsync.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TargetError } from '../errors.js';

let cachedRoot: string | undefined;

/** The folder holding this project's package.json, found by walking up from this file (works from sources and from dist/). */
export function findRepoRoot(): string {
  if (cachedRoot !== undefined) return cachedRoot;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'keepstate-soak') {
      cachedRoot = dir;
      return dir;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new TargetError(`cannot find the keepstate-soak package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}

/** sha256 hex of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
