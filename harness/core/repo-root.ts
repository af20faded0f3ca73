// The one finder of the harness's own folder (the one holding its package.json): works from harness/ and dist/harness/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder holding keepstate-soak's package.json, found by walking up from this file; cached after the first call. */
export function repoRoot(): string {
  if (cached !== undefined) return cached;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ;) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'keepstate-soak') {
      cached = dir;
      return dir;
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`cannot find keepstate-soak's package.json above ${start}`);
    dir = up;
  }
}
