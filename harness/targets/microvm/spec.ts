// The QEMU command-line spec of a microvm guest, from the target's options, the resolved guest and its sockets.
import type { Accelerator } from '../guest/accel.js';
import type { GuestImage } from '../guest/image.js';
import type { MicrovmOptions } from './options.js';
import type { QemuSpec } from './qemu.js';

const LIFETIME_MS = 7 * 24 * 3600_000;

/** What a spec needs besides the options: the image, accelerator, sockets and disk of this guest. */
export interface GuestPlace {
  image: GuestImage;
  accel: Accelerator;
  stepMs: number;
  tscKhz: number | undefined;
  disk: string | undefined;
  qmpSocket: string;
  incoming: boolean;
  /** The guest-state probe's port (ttyS1), when the probe is on. */
  probeSocket?: string;
  /** The wall-clock resync's and RNG seed's port (ttyS2): targetOptions.wallClock `resync` or entropy `fresh`. */
  clockSocket?: string;
}

/** The spec QemuProcess starts (a guest that runs at most a week: QEMU's own watchdog). */
export function qemuSpec(opts: MicrovmOptions, g: GuestPlace): QemuSpec {
  return {
    binary: opts.qemuBinary,
    accel: g.accel,
    memoryMiB: opts.memoryMiB,
    kernel: g.image.kernel,
    initramfs: g.image.initramfs,
    stepMs: g.stepMs,
    tscKhz: g.tscKhz,
    disk: g.disk,
    ramMemfd: opts.ramCapture === 'memfd',
    template: opts.fresh === 'template',
    ...(opts.workload === 'coding' ? { work: workBreak() } : {}),
    ...(opts.dirtyKiBPerStep > 0 ? { dirtyKib: opts.dirtyKiBPerStep } : {}),
    qmpSocket: g.qmpSocket,
    incoming: g.incoming,
    ...(g.probeSocket !== undefined ? { probeSocket: g.probeSocket } : {}),
    ...(g.clockSocket !== undefined ? { clockSocket: g.clockSocket } : {}),
    maxLifetimeMs: LIFETIME_MS,
  };
}

/**
 * The coding workload's kernel-command-line value: `coding`, or TEST-ONLY `coding:<n>` when SOAK_TEST_WORK_BREAK=<n>
 * (the workload's edit at iteration n writes the wrong iteration, so its tests fail: the checker's negative control).
 */
function workBreak(): string {
  const n = process.env.SOAK_TEST_WORK_BREAK;
  return n !== undefined && /^[1-9][0-9]{0,6}$/.test(n) ? `coding:${n}` : 'coding';
}
