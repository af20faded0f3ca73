// What a microvm target reports for the report's tested-environment section.
import type { TargetInfo } from '../target.js';
import type { GuestEnv } from './env.js';
import type { MicrovmOptions } from './options.js';

/** The target's facts from its (possibly partial, before boot) guest environment and its options. */
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
  };
}
