// One microvm checkpoint: RAM + device state (live: saved while the guest runs, QEMU pausing it for the last dirty pages;
// paused: all while stopped), disk copy and cont inside the pause, then the remaining parts into the store (and the
// skew control).
import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CheckpointSink } from '../../store/types.js';
import { copyDisk } from '../guest/disk.js';
import type { MicrovmOptions } from './options.js';
import { type RamIo, ramFiles, saveRam, saveRamInto } from './ram.js';
import { type MachineRecord, RECORD_PART } from './record.js';
import type { QmpClient } from './qmp.js';
import type { CheckpointOptions, CheckpointResult } from '../target.js';
import { TargetError } from '../../core/errors.js';
import { roundTo } from '../../core/round.js';
import { PauseClock } from './pause-clock.js';
import { type HeldAt, heldStepAtStop, holdFresh } from './hold.js';

/** How long after a pause heartbeats written before it may still be arriving. */
const HEARTBEAT_SETTLE_MS = 10;

/** What a checkpoint needs from the running guest. */
export interface CheckpointGuest {
  qmp: QmpClient;
  opts: MicrovmOptions;
  record: MachineRecord;
  /** The live disk image (undefined for RAM-only guests). */
  diskPath: string | undefined;
  /** Step of the latest heartbeat received. */
  lastStep(): number;
  ramIo(): RamIo;
  /** Have the agent hold between steps: the step it holds at, or undefined if it did not acknowledge. */
  hold(): Promise<HeldAt | undefined>;
  release(): void;
}

/** Scratch files of checkpoint `prefix`, by part (kept as the hot copy, or removed by the caller whatever happens). */
export function checkpointFiles(prefix: string): { prefix: string; diskCopy: string; parts: Record<string, string> } {
  const diskCopy = `${prefix}.qcow2`;
  return { prefix, diskCopy, parts: { ...ramFiles(prefix), disk: diskCopy } };
}

/** Capture while frozen (stream mode: RAM into the store as it arrives), unfreeze, then write the rest. Throws on any failure; the caller cleans up and reports. */
export async function takeCheckpoint(
  g: CheckpointGuest,
  prefix: string,
  sink: CheckpointSink,
  opts: CheckpointOptions,
): Promise<CheckpointResult> {
  const { qmp } = g;
  const diskCopy = g.diskPath === undefined ? undefined : checkpointFiles(prefix).diskCopy;
  const skew = opts.skewMs > 0 && diskCopy !== undefined;
  let pausedNs = 0n;
  let diskStep = -1;
  if (skew && g.diskPath !== undefined) {
    // Negative control: the filesystem at t (copied during a brief pause), memory and tool state at t + skewMs.
    const t = process.hrtime.bigint();
    await qmp.execute('stop');
    await copyDisk(g.diskPath, diskCopy);
    await sleep(HEARTBEAT_SETTLE_MS); // let heartbeats written before the stop reach us, so diskStep is exact
    diskStep = g.lastStep();
    await qmp.execute('cont');
    pausedNs += process.hrtime.bigint() - t;
    await sleep(opts.skewMs);
  }
  const inline = g.opts.ramCapture === 'stream' && g.opts.ramIngest === 'inline';
  const live = g.opts.ramCapture === 'stream' && g.opts.ramSave === 'live';
  const background = g.opts.ramCapture === 'stream' && g.opts.ramSave === 'background';
  // With exactStep, where we stop the guest ourselves (paused save; background with a disk), the agent first holds between steps:
  // its `HOLD <step>` acknowledgement comes after every heartbeat it wrote (one serial stream), so the step is exact,
  // where the last heartbeat received is a lower bound (a loaded guest had 6 heartbeats in its UART buffer at the stop,
  // sent by the restored guest). The skew control holds in every mode: a log.txt write in flight at the RAM capture
  // would complete after resume and rewrite the file's last block from RAM, hiding the skew. The restore's
  // full-heartbeat request ends the hold.
  const weStop = !live && (!background || g.diskPath !== undefined);
  const held = (weStop && g.opts.exactStep) || skew ? await holdFresh(() => g.hold()) : undefined;
  let exactStep: number | undefined;
  const stop = async (): Promise<void> => {
    await qmp.execute('stop');
    exactStep = heldStepAtStop(held);
  };
  const clock = new PauseClock(qmp);
  let fallback: NodeJS.Timeout | undefined;
  let saved: { parts: Array<[string, string]>; ramBytes: number; devBytes: number };
  let inlineNs = 0n;
  let step = -1;
  let resumed = false;
  const precopy = { stoppedByUs: false };
  // The state at the pause: disk copy and the step (the held step; else the last heartbeat received after a settle).
  const capture = async (): Promise<void> => {
    if (!skew && g.diskPath !== undefined && diskCopy !== undefined) await copyDisk(g.diskPath, diskCopy);
    if (exactStep !== undefined) {
      step = exactStep;
      return;
    }
    // At least one pass of the event loop's I/O poll even when the pause is long past the settle time (inline ingest
    // keeps this process busy): heartbeats already in the socket are read before the step is taken.
    await sleep(Math.max(HEARTBEAT_SETTLE_MS - clock.sinceStopMs(), 0));
    step = g.lastStep();
  };
  // The end of the pause, run as soon as QEMU has written the whole save (we may still be reading it): capture, cont.
  // A background snapshot captured before the save, and QEMU resumed the guest itself once its RAM was protected.
  const resume = async (): Promise<void> => {
    if (resumed) return;
    resumed = true;
    clearTimeout(fallback);
    if (!clock.stopped)
      throw new TargetError('checkpoint: QEMU completed the save but never reported the guest stopped');
    if (background && clock.resumed) {
      pausedNs += BigInt(Math.round(clock.resumedPauseMs() * 1e6));
    } else {
      if (!background) await capture();
      await qmp.execute('cont');
      pausedNs += BigInt(Math.round(clock.pauseMs() * 1e6));
    }
    if (held !== undefined) g.release(); // the original guest works on at once (not after the store write)
  };
  try {
    if (live) {
      // QEMU pauses the guest itself once the dirty pages left fit in the downtime it aims for; if pre-copy does not
      // converge in time, we pause it and QEMU finishes the save paused. Unsound under TCG on QEMU 7.2 (issue 16,
      // CHANGELOG): some streams miss the guest's last writes - QEMU's own scratch file, byte-identical to the store's
      // copy, restored in a bare QEMU one step behind a heartbeat sent before the pause, without our fallback stop.
      await qmp.execute('migrate-set-parameters', { 'downtime-limit': g.opts.precopyDowntimeMs });
      fallback = setTimeout(() => {
        precopy.stoppedByUs = true;
        void qmp.execute('stop').catch(() => {});
      }, g.opts.precopyMaxMs);
    } else if (background) {
      // QEMU saves the device state in a brief pause, write-protects guest RAM (userfaultfd) and resumes the guest, then
      // saves each page as of that pause (before the guest's first write to it): no dirty tracking involved. QEMU
      // pauses the guest itself after its setup (populating every RAM page), which would otherwise sit inside our
      // pause. With a disk, we pause the guest first so that the disk copy is of the same instant.
      await qmp.execute('migrate-set-capabilities', {
        capabilities: [{ capability: 'background-snapshot', state: true }],
      });
      if (g.diskPath !== undefined) {
        await stop();
        await capture();
      } else step = g.lastStep(); // a lower bound: QEMU's pause comes later, and the guest steps on until then
    } else await stop();
    if (inline) {
      // Stream mode: the migration stream goes straight into the store as QEMU writes it (parts keep their order).
      const i = process.hrtime.bigint();
      await sink.put(RECORD_PART, Buffer.from(JSON.stringify(g.record)));
      saved = { parts: [], ramBytes: await saveRamInto(g.ramIo(), sink, resume), devBytes: 0 };
      inlineNs = process.hrtime.bigint() - i;
    } else saved = await saveRam(g.opts.ramCapture, g.ramIo(), prefix, resume);
    await resume();
  } finally {
    clearTimeout(fallback);
    clock.dispose();
  }

  const w = process.hrtime.bigint();
  if (!inline) await sink.put(RECORD_PART, Buffer.from(JSON.stringify(g.record)));
  // A migration stream is parsed, one chunk per page (its pages sit off the 4 KiB grid behind 8-byte headers);
  // memfd mode's RAM image is page-aligned already, and its device-state stream has no pages.
  for (const [name, file] of saved.parts)
    await sink.putFile(name, file, {
      chunking: name === 'ram' && g.opts.ramCapture === 'stream' ? 'qemu-pages' : 'fixed',
    });
  if (diskCopy !== undefined) await sink.putFile('disk', diskCopy);
  // Store write time: after the pause, plus (stream mode) the RAM ingest that overlapped QEMU's write inside it.
  const storeWriteMs = Number(process.hrtime.bigint() - w + inlineNs) / 1e6;
  return {
    step,
    pauseMs: Number(pausedNs) / 1e6,
    meta: {
      accelerator: g.record.accelerator,
      guestRamMiB: g.opts.memoryMiB,
      ramCapture: g.opts.ramCapture,
      ramIngest: inline ? 'inline' : 'file',
      ramSave: live ? 'live' : background ? 'background' : 'paused',
      /** Live save: 1 if pre-copy had not converged after precopyMaxMs and we paused the guest ourselves. */
      precopyFallback: precopy.stoppedByUs ? 1 : 0,
      ramStreamBytes: saved.ramBytes,
      deviceStateBytes: saved.devBytes,
      diskBytes: diskCopy === undefined ? 0 : (await stat(diskCopy)).size,
      storeWriteMs: roundTo(storeWriteMs, 1),
      skewAppliedMs: skew ? opts.skewMs : 0,
      /** 1: `step` is the agent's held step at the stop; 0: the last heartbeat received, a lower bound (live save,
       * background without a disk, or no acknowledgement within the hold). */
      stepExact: exactStep === undefined ? 0 : 1,
      /** Steps the guest reported between the disk capture and the RAM capture (skew only; 0 = no skew visible); an
       * upper bound, since heartbeats still in flight at the disk copy count as after it. */
      skewSteps: skew ? step - diskStep : 0,
    },
  };
}
