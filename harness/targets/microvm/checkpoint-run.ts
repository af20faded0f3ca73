// One microvm checkpoint as the target runs it: the capture (checkpoint.ts), then its scratch files kept as the hot
// copy (hot-copy.ts) or removed; on failure a guest that is still alive is not left frozen.
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckpointSink } from '../../store/types.js';
import type { CheckpointOptions, CheckpointResult } from '../target.js';
import { RELEASE_REQUEST } from '../guest/console.js';
import { type CheckpointGuest, checkpointFiles, takeCheckpoint } from './checkpoint.js';
import { stageHotCopy } from './hot-copy.js';
import type { QemuProcess } from './qemu.js';

/**
 * Take checkpoint `prefix`; with `hotCopyDir`, move the files it stored into that folder, named by the checkpoint's seq. Errors are
 * passed through `wrap` (which reads QEMU's diagnostics) after QEMU's exit had a moment to be recorded.
 */
export async function runCheckpoint(
  g: CheckpointGuest,
  qemu: QemuProcess,
  prefix: string,
  sink: CheckpointSink,
  opts: CheckpointOptions,
  hotCopyDir: string | undefined,
  wrap: (err: unknown) => Error,
): Promise<CheckpointResult> {
  const files = checkpointFiles(prefix);
  try {
    const result = await takeCheckpoint(g, prefix, sink, opts);
    if (hotCopyDir !== undefined && sink.seq !== undefined) await stageHotCopy(hotCopyDir, files.parts, sink.seq);
    return result;
  } catch (err) {
    // If QEMU died under us, the QMP socket usually closes first: give its exit a moment to be recorded.
    await Promise.race([qemu.exited, sleep(200)]);
    const wrapped = wrap(err);
    // Best effort: a failed save of a live guest must not leave it frozen.
    if (qemu.exitReason() === undefined) {
      await g.qmp.execute('migrate_cancel').catch(() => {});
      await g.qmp.execute('cont').catch(() => {});
      qemu.writeConsole(RELEASE_REQUEST);
    }
    throw wrapped;
  } finally {
    for (const f of Object.values(files.parts)) await rm(f, { force: true });
  }
}
