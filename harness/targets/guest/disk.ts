// The guest's workspace disk: a fresh ext4 filesystem in a qcow2 file, and a consistent copy of it taken while paused.
import { copyFile, rm } from 'node:fs/promises';
import { TargetError } from '../../core/errors.js';
import { loadExeca } from './lazy-execa.js';

/**
 * Create `file` (qcow2) holding an empty ext4 filesystem of `sizeMiB`, with fast_commit unless `fastCommit` is false;
 * mkfs runs on the host, on a temporary raw file.
 */
export async function createDisk(file: string, sizeMiB: number, fastCommit = true): Promise<void> {
  const execa = await loadExeca();
  const raw = `${file}.raw`;
  try {
    await execa('truncate', ['-s', `${sizeMiB}M`, raw], { timeout: 10_000 });
    // Initialise inode tables and journal now, so the guest's ext4lazyinit does not write in the background.
    // fast_commit: the agent fdatasyncs its log every step; with plain jbd2 each fsync journals whole metadata blocks
    // (descriptor, inode table, bitmaps, commit): new disk blocks and changed RAM pages every checkpoint must store.
    // Fast commits log the inode change in one small block: about a tenth of the disk blocks (bench/README.md).
    const features = fastCommit ? ['-O', 'fast_commit'] : [];
    await execa(
      'mkfs.ext4',
      ['-q', '-F', '-L', 'soak', ...features, '-E', 'lazy_itable_init=0,lazy_journal_init=0', raw],
      { timeout: 60_000 },
    );
    await execa('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, file], { timeout: 60_000 });
  } catch (err) {
    const e = err as { shortMessage?: string; code?: string };
    const hint = e.code === 'ENOENT' ? ' (install the Debian packages e2fsprogs and qemu-utils)' : '';
    throw new TargetError(`creating the guest disk ${file} failed: ${e.shortMessage ?? String(err)}${hint}`, {
      cause: err,
    });
  } finally {
    await rm(raw, { force: true });
  }
}

/** Copy the disk image. Only consistent while the guest is paused (QEMU flushes qcow2 metadata on stop). */
export async function copyDisk(src: string, dst: string): Promise<void> {
  await copyFile(src, dst);
}
