// Hashing a local file (image parts, kernel, template snapshots, hot copies) as a stream through reused buffers, a
// file's identity (device, inode, size, mtime, ctime: a write or a rename onto the path changes it), and the check of
// a file against a recorded digest that both the hot copy and template snapshots make.
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** `file`'s identity and its size, from one stat. */
export async function statIdentity(file: string): Promise<{ identity: string; size: number }> {
  const s = await stat(file, { bigint: true });
  return { identity: `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`, size: Number(s.size) };
}

/** `file`'s identity, or `gone` if it cannot be read. */
export async function identityOf(file: string): Promise<string> {
  return (await statIdentity(file).catch(() => ({ identity: 'gone' }))).identity;
}

/**
 * Read buffers for hashing, 1 MiB each, allocated and written (so touched: `Buffer.alloc` alone gets zeroed pages the
 * kernel maps only at their first write) when this module loads: a fresh buffer per read costs a first touch of every
 * page, slow on a Firecracker guest (bench/README.md). Two files may be hashed at once: one buffer each (a third gets a fresh one).
 */
const hashBuffers: Buffer[] = [Buffer.alloc(1 << 20).fill(1), Buffer.alloc(1 << 20).fill(1)];

/** SHA-256 (hex) of `file`, read once through a reused 1 MiB buffer (no whole-file buffer, no fresh pages per read). */
export async function sha256File(file: string): Promise<string> {
  const buf = hashBuffers.pop() ?? Buffer.alloc(1 << 20);
  const fh = await open(file, 'r');
  try {
    const hash = createHash('sha256');
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, null);
      if (bytesRead === 0) break;
      hash.update(buf.subarray(0, bytesRead));
    }
    return hash.digest('hex');
  } finally {
    await fh.close();
    hashBuffers.push(buf);
  }
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
 * first hash and stat pay for first use (thread pool, OpenSSL, file handles).
 */
export async function warmHashing(): Promise<void> {
  const self = fileURLToPath(import.meta.url);
  await sha256File(self);
  await statIdentity(self);
}
