// Guest RAM in a shared memfd (QEMU x-ignore-shared): found through /proc/<qemu>/fd, copied out while paused, loaded before -incoming.
import { copyFile, open, readdir, readlink } from 'node:fs/promises';
import { TargetError } from '../../core/errors.js';

/** /proc path of QEMU's guest-RAM memfd (the only memfd a microvm started with memory-backend-memfd has). */
export async function memfdPath(pid: number): Promise<string> {
  const dir = `/proc/${pid}/fd`;
  for (const fd of await readdir(dir)) {
    const link = await readlink(`${dir}/${fd}`).catch(() => '');
    if (link.startsWith('/memfd:')) return `${dir}/${fd}`;
  }
  throw new TargetError(`QEMU (pid ${pid}) has no guest-RAM memfd open: was it started with ramCapture "memfd"?`);
}

/** Copy the paused guest's RAM into `file`; returns its size. */
export async function saveMemfd(pid: number, file: string): Promise<number> {
  const src = await memfdPath(pid);
  await copyFile(src, file);
  const h = await open(file, 'r');
  try {
    return (await h.stat()).size;
  } finally {
    await h.close();
  }
}

/** Write a saved RAM image into the new QEMU's memfd (sealed against resizing: written in place, never truncated). */
export async function loadMemfd(pid: number, data: AsyncIterable<Uint8Array>, expectedBytes: number): Promise<number> {
  const h = await open(await memfdPath(pid), 'r+');
  let off = 0;
  // Store chunks are small (4 KiB): gather them into 4 MiB writes, one syscall each.
  const batch = Buffer.allocUnsafe(4 << 20);
  let used = 0;
  const flush = async (): Promise<void> => {
    if (used > 0) await h.write(batch, 0, used, off - used);
    used = 0;
  };
  try {
    for await (const chunk of data) {
      if (off + chunk.length > expectedBytes)
        throw new TargetError(`RAM image is larger than the guest's ${expectedBytes} bytes of RAM`);
      if (used + chunk.length > batch.length) await flush();
      if (chunk.length > batch.length) {
        await h.write(chunk, 0, chunk.length, off);
      } else {
        batch.set(chunk, used);
        used += chunk.length;
      }
      off += chunk.length;
    }
    await flush();
  } finally {
    await h.close();
  }
  if (off !== expectedBytes)
    throw new TargetError(
      `RAM image has ${off} bytes, the guest has ${expectedBytes}: checkpoint from another machine shape?`,
    );
  return off;
}
