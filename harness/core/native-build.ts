// The harness's small C programs (native/<name>/: lazyfs, subreaper), compiled with gcc on first use into
// native/build/<name>-<hash of the sources>, so a changed source builds anew and an unchanged one is never rebuilt.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { publishFile, tempPathFor } from './durable.js';
import { repoRoot } from './repo-root.js';

/** How long one compile may take. */
const BUILD_TIMEOUT_MS = 120_000;

/** Run `cmd args` (no shell) with a timeout; its stdout, or an Error naming the command and its first stderr line. */
export function runTool(cmd: string, args: readonly string[], timeoutMs = BUILD_TIMEOUT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err === null) resolve(stdout);
      else {
        const why = (stderr.trim().split('\n')[0] ?? '') || err.message;
        reject(Object.assign(new Error(`${cmd} failed: ${why}`), { code: (err as NodeJS.ErrnoException).code }));
      }
    });
  });
}

/** Where native/<name>'s binary for these sources is (built or not): native/build/<name>-<12 hex of their sha256>. */
export function nativeBinaryPath(name: string, sources: readonly string[]): string {
  const dir = path.join(repoRoot(), 'native', name);
  const h = createHash('sha256');
  for (const f of sources) h.update(readFileSync(path.join(dir, f)));
  return path.join(repoRoot(), 'native', 'build', `${name}-${h.digest('hex').slice(0, 12)}`);
}

/**
 * The binary of native/<name>, compiled from `sources` (the .c files; headers only hashed) with `flags` when it is not
 * built yet; written under an unguessable temp name and published (fsync, rename), so concurrent builds cannot collide.
 */
export async function buildNative(
  name: string,
  sources: readonly string[],
  flags: readonly string[] = [],
): Promise<string> {
  const bin = nativeBinaryPath(name, sources);
  if (existsSync(bin)) return bin;
  mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = tempPathFor(bin); // unguessable: nothing can be planted at the compiler's output path
  const srcs = sources.filter((f) => f.endsWith('.c')).map((f) => path.join(repoRoot(), 'native', name, f));
  try {
    await runTool(
      'gcc',
      ['-O2', '-Wall', '-Wextra', '-o', tmp, ...srcs, ...flags].filter((a) => a !== ''),
    );
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  publishFile(tmp, bin);
  return bin;
}
