// A restore's RAM load: from the store (or a part without a verified hot copy) as ram.ts loads it, or from the verified
// hot copy's RAM stream file, which QEMU reads itself (`exec:cat`: no second read through Node).
import { TargetError } from '../../core/errors.js';
import type { CheckpointSource } from '../../store/types.js';
import type { HotSource } from './hot-copy.js';
import type { QemuProcess } from './qemu.js';
import { loadRam, type RamCaptureMode, type RamIo } from './ram.js';
import { catUri, incomingDone } from './template-boot.js';

/** Load `source`'s RAM into the waiting QEMU; throws (TargetError) if a hot copy file changed after its check. */
export async function loadRestoreRam(
  mode: RamCaptureMode,
  io: RamIo,
  source: CheckpointSource,
  qemu: QemuProcess,
  hot: Pick<HotSource, 'files' | 'changed'>,
): Promise<void> {
  const ramFile = mode === 'stream' ? hot.files.get('ram') : undefined;
  if (ramFile === undefined) await loadRam(mode, io, source);
  else {
    await io.qmp.execute('migrate-incoming', { uri: catUri(ramFile) });
    await incomingDone(io.qmp, qemu, io.timeoutMs, 'the hot copy of the RAM state');
  }
  // The guest has not run yet: a copy written between its digest check and QEMU's (or the disk's) read is refused here.
  const moved = await hot.changed();
  if (moved.length > 0)
    throw new TargetError(`the hot copy's ${moved.join(', ')} changed after its digest check: not resuming it`);
}
