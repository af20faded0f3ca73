// The bounded KVM boot probe: boot a throwaway RAM-only guest under KVM and see whether it heartbeats in time.
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { QemuProcess, type QemuSpec } from './qemu.js';

export const KVM_PROBE_MS = 8_000;

/** True if a KVM guest built from `base` (forced to 128 MiB, no disk) prints a heartbeat within `timeoutMs`. */
export async function probeKvmBoot(base: QemuSpec, qmpSocket: string, timeoutMs = KVM_PROBE_MS): Promise<boolean> {
  // An object, so the loop below reads the field the heartbeat callback sets (a plain `let` would stay narrowed to false).
  const heard = { seen: false };
  const probe = new QemuProcess(
    { ...base, accel: 'kvm', incoming: false, disk: undefined, memoryMiB: 128, qmpSocket },
    () => (heard.seen = true),
  );
  const deadline = Date.now() + timeoutMs;
  try {
    while (!heard.seen && probe.exitReason() === undefined && Date.now() < deadline) await sleep(50);
  } finally {
    await probe.kill();
    await rm(qmpSocket, { force: true });
  }
  return heard.seen;
}
