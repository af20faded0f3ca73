// A restore's disk image: a new file for a QEMU yet to start, or rewritten in place (same path, same inode) under a
// standby's QEMU, which opened a placeholder image of the same size in `-incoming defer`: an incoming image stays
// inactive until the loaded guest is activated, and qcow2 re-reads its metadata then, so the guest sees the
// checkpoint's disk (test/targets/microvm/target.test.ts checks it, and that a blank disk does not verify).
import { open } from 'node:fs/promises';
import type { CheckpointSource } from '../../store/types.js';

/** Write the checkpoint's part "disk" to `file`: replacing it, or (`inPlace`) over its bytes, keeping the inode. */
export async function writeDisk(source: CheckpointSource, file: string, inPlace: boolean): Promise<void> {
  if (!inPlace) {
    await source.writeFile('disk', file);
    return;
  }
  const fh = await open(file, 'r+');
  try {
    let at = 0;
    for await (const piece of source.stream('disk', { reuse: true })) {
      await fh.write(piece, 0, piece.length, at);
      at += piece.length;
    }
    await fh.truncate(at);
  } finally {
    await fh.close();
  }
}
