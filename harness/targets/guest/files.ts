// Hashing a local file (image parts, kernel, template snapshots) as a stream through a reused buffer, and a file's
// identity (a write to it moves its ctime).
import { createHash } from 'node:crypto';
import { open, stat } from 'node:fs/promises';

/** `file`'s identity: device, inode, size, modification and change times (ns). */
export async function fileIdentity(file: string): Promise<string> {
  const s = await stat(file, { bigint: true });
  return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
}

/** One reused read buffer (allocated at load: fresh pages cost a first touch each on this kind of guest). */
const buffer = Buffer.alloc(1 << 20);
let busy = false;

/** SHA-256 of `file`, read through a 1 MiB buffer (no whole-file buffer). */
export async function sha256File(file: string): Promise<string> {
  const buf = busy ? Buffer.alloc(1 << 20) : buffer;
  const mine = buf === buffer;
  if (mine) busy = true;
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
    if (mine) busy = false;
  }
}
