// The hot copy's two checks on a file: its identity (device, inode, size, mtime, ctime: a write or a rename onto the
// path changes it) and its SHA-256, read once through reused buffers (both from guest/files.ts).
import { sha256File, statIdentity } from '../guest/files.js';
import { fileURLToPath } from 'node:url';

/** `file`'s identity, or `gone` if it cannot be read. */
export async function identityOf(file: string): Promise<string> {
  return (await statIdentity(file).catch(() => ({ identity: 'gone' }))).identity;
}

/**
 * Why `file` does not hold the bytes of `digest` (`digest mismatch`, `changed while verified`: its identity moved on
 * from `identity` by the end of the hash), or undefined when it does. Never rejects: an unreadable file is a reason.
 */
export async function digestRefusal(file: string, digest: string, identity: string): Promise<string | undefined> {
  const got = await sha256File(file).catch(() => undefined);
  if (got === undefined) return 'unreadable';
  if (got !== digest) return 'digest mismatch';
  // written while we hashed it: what we hashed may not be what the file holds
  return (await identityOf(file)) === identity ? undefined : 'changed while verified';
}

/**
 * Run the checks once on a small file (this module's own), off the measured path (a standby's warm-up): a process's
 * first hash and stat pay for first use (thread pool, OpenSSL, file handles: 60-130 ms here under load 12).
 */
export async function warmHashing(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  await sha256File(self);
  await statIdentity(self);
}
