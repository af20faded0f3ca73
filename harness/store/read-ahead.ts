// Reading a file to store it: the next read in flight while the caller hashes the current one.
import { open } from 'node:fs/promises';

const READ_BUFFER = 4 << 20;

/**
 * A file's bytes through two reused 4 MiB buffers, the next read in flight while the caller consumes the current one
 * (fresh buffers per read would cost GC). Safe only for a consumer that is done with a buffer before asking for the
 * next: every cutter hashes and copies a pushed buffer's chunks before `push` returns.
 */
export async function* readAhead(file: string): AsyncGenerator<Uint8Array> {
  const fh = await open(file, 'r');
  const bufs = [Buffer.allocUnsafe(READ_BUFFER), Buffer.allocUnsafe(READ_BUFFER)];
  let i = 0;
  let next = fh.read(bufs[0]!, 0, READ_BUFFER, null);
  try {
    for (;;) {
      const { bytesRead } = await next;
      if (bytesRead === 0) return;
      const current = bufs[i]!;
      i ^= 1;
      next = fh.read(bufs[i]!, 0, READ_BUFFER, null);
      yield current.subarray(0, bytesRead);
    }
  } finally {
    await next.catch(() => {});
    await fh.close();
  }
}
