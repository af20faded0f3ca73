// How guest RAM + device state are captured: the QEMU migration stream, or a page-aligned memfd image plus device state.
import { TargetError } from '../../core/errors.js';
import type { CheckpointSink, CheckpointSource } from '../../store/types.js';
import { loadMemfd, saveMemfd } from './memfd.js';
import { migrateFromStream, migrateInto, migrateToFile } from './migrate.js';
import type { QmpClient } from './qmp.js';

/**
 * "stream": one migration stream (RAM pages + devices), compact (zero pages are markers) but not page-aligned, so a
 *   fixed-size chunker dedups little between checkpoints.
 * "memfd": guest RAM lives in a shared memfd that migration skips (x-ignore-shared); the checkpoint stores the RAM
 *   image page-aligned (part "ram", dedups page by page) and a small device-state stream (part "devstate").
 */
export type RamCaptureMode = 'stream' | 'memfd';

export interface RamIo {
  qmp: QmpClient;
  qemuPid: number;
  /** Unix socket path for the migration connection. */
  socket: string;
  timeoutMs: number;
  guestRamBytes: number;
}

/** The RamIo of a running QEMU (`pid` undefined: it never started, a TargetError). */
export function ramIoOf(
  pid: number | undefined,
  qmp: QmpClient,
  socket: string,
  opts: { migrateTimeoutMs: number; memoryMiB: number },
): RamIo {
  if (pid === undefined) throw new TargetError('QEMU has no pid');
  return { qmp, qemuPid: pid, socket, timeoutMs: opts.migrateTimeoutMs, guestRamBytes: opts.memoryMiB * 2 ** 20 };
}

/** Capabilities a QEMU needs before saving or loading in this mode (both sides must agree). */
export async function setupRamCapture(mode: RamCaptureMode, qmp: QmpClient): Promise<void> {
  if (mode === 'memfd')
    await qmp.execute('migrate-set-capabilities', { capabilities: [{ capability: 'x-ignore-shared', state: true }] });
}

/**
 * Stream mode: save straight into the checkpoint as part "ram", each page hashed as QEMU writes it (no file, no second
 * read). Returns the bytes. `onCompleted` runs once QEMU has written the whole stream (the guest may resume there).
 */
export async function saveRamInto(io: RamIo, sink: CheckpointSink, onCompleted?: () => Promise<void>): Promise<number> {
  return migrateInto(
    io.qmp,
    io.socket,
    (stream) => sink.put('ram', stream, { chunking: 'qemu-pages' }),
    io.timeoutMs,
    onCompleted,
  );
}

/**
 * Save into files under `prefix`; returns the parts to store, in order, and the bytes captured. Stream mode runs
 * `onCompleted` once QEMU has written the whole stream; memfd mode reads RAM after the save, so it runs it at the end.
 */
export async function saveRam(
  mode: RamCaptureMode,
  io: RamIo,
  prefix: string,
  onCompleted: () => Promise<void> = async () => {},
): Promise<{ parts: Array<[string, string]>; ramBytes: number; devBytes: number }> {
  const files = ramFiles(prefix);
  if (mode === 'stream') {
    const ramBytes = await migrateToFile(io.qmp, io.socket, files.ram, io.timeoutMs, onCompleted);
    return { parts: [['ram', files.ram]], ramBytes, devBytes: 0 };
  }
  const devBytes = await migrateToFile(io.qmp, io.socket, files.devstate, io.timeoutMs);
  const ramBytes = await saveMemfd(io.qemuPid, files.ram);
  await onCompleted();
  return {
    parts: [
      ['ram', files.ram],
      ['devstate', files.devstate],
    ],
    ramBytes,
    devBytes,
  };
}

/** Load into a QEMU started with -incoming defer (still paused afterwards). */
export async function loadRam(mode: RamCaptureMode, io: RamIo, source: CheckpointSource): Promise<void> {
  if (mode === 'stream') {
    await migrateFromStream(io.qmp, io.socket, source.stream('ram', { reuse: true }), io.timeoutMs);
    return;
  }
  await loadMemfd(io.qemuPid, source, io.guestRamBytes);
  await migrateFromStream(io.qmp, io.socket, source.stream('devstate', { reuse: true }), io.timeoutMs);
}

/** The scratch files saveRam writes under `prefix`, by part (the one place their names are made; removed by the caller). */
export function ramFiles(prefix: string): { ram: string; devstate: string } {
  return { ram: `${prefix}.ram`, devstate: `${prefix}.dev` };
}
