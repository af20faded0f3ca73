// A restore's RAM load: from the store (or a part without a hot copy) as ram.ts loads it, or from the hot copy's RAM
// stream file, which QEMU reads itself (`exec:cat`: no second read through Node) while Node hashes the same file. The
// honesty line: the guest never runs on unverified bytes. QEMU loads into a paused guest; the caller's `cont` comes
// only after this returned, which is after the digest matched the store's and the file's identity held; a copy refused
// after the load costs that QEMU (killed, its RAM never run) and the RAM is loaded from the store into a new one.
import { TargetError } from '../../core/errors.js';
import type { CheckpointSource } from '../../store/types.js';
import { demote, describeUse, type HotSource } from './hot-copy.js';
import type { PhaseRecorder } from '../phase-marks.js';
import type { QemuProcess } from './qemu.js';
import { loadRam, type RamCaptureMode, type RamIo } from './ram.js';
import { catUri, incomingDone } from './template-boot.js';

/**
 * SOAK_TEST_HOT_COPY_CONT_EARLY=1 (TEST-ONLY negative control): the hot copy's RAM is handed to the guest without
 * waiting for its digest, so a copy that passed the cheap checks but not the digest runs; the checker must catch it.
 */
export const HOT_COPY_CONT_EARLY = 'SOAK_TEST_HOT_COPY_CONT_EARLY';

/** The QEMU a restore loads into (paused, `-incoming defer`), and how to replace it with a new one. */
export interface RamLoadGuest {
  mode: RamCaptureMode;
  io: RamIo;
  qemu: QemuProcess;
  /** Kill this QEMU (its RAM holds refused bytes) and start a new one in `-incoming defer`; its RamIo. */
  replace(): Promise<RamIo>;
  /** The restore's phase marks: `hotRamRefused` ends the load of a hot copy refused after it (then `ram`, the store's). */
  phases?: Pick<PhaseRecorder, 'mark'>;
}

/**
 * Load `source`'s RAM into the waiting QEMU (`stored`: the store's own source, for a refused hot copy). Returns where
 * the restore read its parts if that changed (`hot+store (ram: digest mismatch)`: the hot copy's RAM was refused after
 * QEMU loaded it, and `g.replace()` was called). Throws (TargetError) if another hot part's file changed after its check.
 */
export async function loadRestoreRam(
  g: RamLoadGuest,
  source: CheckpointSource,
  stored: CheckpointSource,
  hot: Pick<HotSource, 'files' | 'changed' | 'refusal' | 'use'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const ramFile = g.mode === 'stream' ? hot.files.get('ram') : undefined;
  if (ramFile === undefined) {
    await loadRam(g.mode, g.io, source);
    await refuseChanged(hot);
    return undefined;
  }
  await g.io.qmp.execute('migrate-incoming', { uri: catUri(ramFile) });
  // QEMU (through cat) and this process read the same file at once: the hash starts here, not before
  const verdict = env[HOT_COPY_CONT_EARLY] === '1' ? Promise.resolve(undefined) : hot.refusal('ram');
  const loading = incomingDone(g.io.qmp, g.qemu, g.io.timeoutMs, 'the hot copy of the RAM state');
  const [failed, reason] = await Promise.all([loading.then(() => undefined, asError), verdict]);
  if (reason !== undefined) {
    // The paused guest's RAM now holds bytes that did not verify: never `cont` that QEMU. A new one loads the store's.
    g.phases?.mark('hotRamRefused');
    const io = await g.replace();
    await loadRam(g.mode, io, stored);
    await refuseChanged(hot, 'ram');
    return describeUse(demote(hot.use, 'ram', reason));
  }
  if (failed !== undefined) throw failed;
  await refuseChanged(hot);
  return undefined;
}

/** Throws if a hot part (but `except`) changed since its check: the guest has not run yet, so nothing is lost. */
async function refuseChanged(hot: Pick<HotSource, 'changed'>, except?: string): Promise<void> {
  const moved = (await hot.changed()).filter((p) => p !== except);
  if (moved.length > 0)
    throw new TargetError(`the hot copy's ${moved.join(', ')} changed after its digest check: not resuming it`);
}

/** A rejection as an Error (QEMU's load throws TargetErrors). */
const asError = (err: unknown): Error =>
  err instanceof Error ? err : new TargetError('loading the hot copy of the RAM state failed');
