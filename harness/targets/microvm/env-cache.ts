// The guest environment a session resolved first, reused by each later host of the same session: a new host then
// pays a few stats instead of spawning `qemu --version` and hashing the image recipe (once per cold restore). It also keeps a session on the image it booted, which its saved RAM needs.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/durable.js';
import type { GuestImage } from '../guest/image.js';
import type { MicrovmOptions } from './options.js';
import { type GuestEnv, resolveGuestEnv } from './env.js';

/** The file in the session folder. */
export const ENV_CACHE_FILE = 'microvm-env.json';

interface Cached {
  key: string;
  env: GuestEnv;
}

/** Identity of a file (inode, size, mtime), or 'missing'. */
function fileId(file: string): string {
  try {
    const s = statSync(file);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

/** `binary` as found on PATH (or as given when it has a slash). */
function onPath(binary: string): string {
  if (binary.includes('/')) return binary;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const file = path.join(dir || '.', binary);
    if (fileId(file) !== 'missing') return file;
  }
  return binary;
}

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/** What must be unchanged for a cached environment to hold: QEMU's binary, the image files, the host boot, the ask. */
export function sessionEnvKey(binary: string, accel: string, image?: GuestImage): string {
  const files = image === undefined ? [] : [image.kernel, image.initramfs].map((f) => `${f}=${fileId(f)}`);
  return [binary, fileId(onPath(binary)), accel, bootId(), ...files].join('|');
}

/** The session's guest environment saved by an earlier host, if it still holds (synchronous: a few stats). */
export function readSessionEnv(sessionDir: string, binary: string, accel: string): GuestEnv | undefined {
  try {
    const cached = JSON.parse(readFileSync(path.join(sessionDir, ENV_CACHE_FILE), 'utf8')) as Cached;
    return cached.key === sessionEnvKey(binary, accel, cached.env.image) ? cached.env : undefined;
  } catch {
    return undefined; // none yet, or unreadable: resolve
  }
}

/** The session's guest environment: from `sessionDir` when still valid, else resolved (and saved for the next host). */
export async function sessionGuestEnv(
  sessionDir: string,
  opts: Pick<MicrovmOptions, 'qemuBinary' | 'accel' | 'workload'>,
  probe: (image: GuestImage) => Promise<boolean>,
): Promise<GuestEnv> {
  const { qemuBinary: binary, accel, workload } = opts;
  const cached = readSessionEnv(sessionDir, binary, accel);
  if (cached !== undefined) return cached;
  const env = await resolveGuestEnv(binary, accel, probe, workload);
  try {
    const file = path.join(sessionDir, ENV_CACHE_FILE);
    writeFileAtomic(
      file,
      `${JSON.stringify({ key: sessionEnvKey(binary, accel, env.image), env } satisfies Cached)}\n`,
    );
  } catch {
    // a read-only or vanished session folder: the next host resolves again
  }
  return env;
}
