// Guest RAM in a shared memfd (QEMU x-ignore-shared): found through /proc/<qemu>/fd, copied out while paused, loaded before -incoming.
import { execFile } from 'node:child_process';
import { type FileHandle, open, readdir, readlink } from 'node:fs/promises';
import type { CheckpointSource } from '../../store/types.js';
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

/**
 * Copy the paused guest's RAM into `file`; returns its size. coreutils `cp --sparse=always` copies only the memfd's
 * data (it skips the pages the guest never touched by SEEK_DATA/SEEK_HOLE, and leaves zero blocks as holes); a whole
 * copy (copy_file_range) wrote every byte of the guest's RAM while it was paused (bench/README.md "resume-floor").
 */
export async function saveMemfd(pid: number, file: string): Promise<number> {
  const src = await memfdPath(pid);
  await new Promise<void>((resolve, reject) =>
    execFile('cp', ['--sparse=always', src, file], { encoding: 'utf8' }, (err, _out, stderr) =>
      err
        ? reject(
            new TargetError(`copying the guest's RAM out of QEMU's memfd failed: ${stderr.trim() || err.message}`, {
              cause: err,
            }),
          )
        : resolve(),
    ),
  );
  const h = await open(file, 'r');
  try {
    return (await h.stat()).size;
  } finally {
    await h.close();
  }
}

/**
 * Write the checkpoint's RAM image (part `ram`) into the new QEMU's memfd (sealed against resizing: written in place,
 * never truncated). A store source writes each checked chunk at its offset, and leaves zero pages out while the memfd
 * holds no page at all (a QEMU that never ran: every byte reads as zero); any other source is streamed in. Returns the
 * bytes the image covers.
 */
export async function loadMemfd(pid: number, source: CheckpointSource, expectedBytes: number): Promise<number> {
  const size = source.size?.('ram');
  if (size !== undefined && size !== expectedBytes) throw sizeMismatch(size, expectedBytes);
  const h = await open(await memfdPath(pid), 'r+');
  try {
    const off =
      source.writeInto !== undefined
        ? await source.writeInto('ram', h.fd)
        : await writeStream(h, source.stream('ram', { reuse: true }), expectedBytes);
    if (off !== expectedBytes) throw sizeMismatch(off, expectedBytes);
    return off;
  } finally {
    await h.close();
  }
}

/** Write `data` into `h` from offset 0 in 4 MiB writes (store chunks are small); returns the bytes written. */
export async function writeStream(
  h: FileHandle,
  data: AsyncIterable<Uint8Array>,
  expectedBytes: number,
): Promise<number> {
  let off = 0;
  const batch = Buffer.allocUnsafe(4 << 20);
  let used = 0;
  const flush = async (): Promise<void> => {
    if (used > 0) await h.write(batch, 0, used, off - used);
    used = 0;
  };
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
  return off;
}

const sizeMismatch = (got: number, guest: number): TargetError =>
  new TargetError(`RAM image has ${got} bytes, the guest has ${guest}: checkpoint from another machine shape?`);
