// What the microvm target reports of itself for the report's tested-environment section (target-info).
import type { GuestEnv } from './env.js';
import { freshEntropy, type MicrovmOptions } from './options.js';
import type { TargetInfo } from '../target.js';

/** The target facts of a microvm guest: accelerator, QEMU, image, machine shape, RAM capture, how fresh sessions start. */
export function describeMicrovm(env: Partial<GuestEnv>, opts: MicrovmOptions): TargetInfo {
  return {
    accelerator: env.accel?.accel ?? 'unresolved',
    acceleratorReason: env.accel?.reason ?? 'not booted yet',
    qemuVersion: env.qemuVersion ?? 'unknown',
    imageHash: env.image?.hash ?? 'unbuilt',
    kernelPackage: env.image?.kernelPackage ?? 'unknown',
    memoryMiB: opts.memoryMiB,
    disk: opts.disk,
    diskMiB: opts.disk ? opts.diskMiB : 0,
    diskFastCommit: opts.disk && opts.diskFastCommit,
    ramCapture: opts.ramCapture,
    freshStart: opts.fresh,
    wallClock: opts.wallClock,
    entropy: freshEntropy(opts) ? 'fresh' : 'as-snapshot',
    workload: opts.workload,
    ...(opts.dirtyKiBPerStep > 0 ? { dirtyKiBPerStep: opts.dirtyKiBPerStep } : {}),
  };
}
