// What a microvm guest needs from this machine: the built image, QEMU's version, the accelerator, the host TSC rate.
import path from 'node:path';
import {
  type AccelDecision,
  peekAccelerator,
  qemuVersion,
  qemuVersionSync,
  resolveAccelerator,
} from '../guest/accel.js';
import { buildImage, cachedImage, type GuestImage, vmImagesDir } from '../guest/image.js';
import { hostTscKhz } from '../guest/tsc.js';
import { cachedCodingImage, codingImage, type Workload } from '../guest/work-image.js';

export interface GuestEnv {
  image: GuestImage;
  qemuVersion: string;
  accel: AccelDecision;
  /** Host TSC kHz, TCG only. */
  tscKhz?: number;
}

function probeCacheFile(): string {
  return path.join(vmImagesDir(), 'build', 'accel-probe.json');
}

/** Build the image if needed, resolve the accelerator (KVM probe with `probe` when auto and not cached). */
export async function resolveGuestEnv(
  binary: string,
  accel: 'auto' | 'kvm' | 'tcg',
  probe: (image: GuestImage) => Promise<boolean>,
  workload: Workload = 'steps',
): Promise<GuestEnv> {
  const version = await qemuVersion(binary);
  const base = await buildImage();
  const decision = await resolveAccelerator(accel, {
    cacheFile: probeCacheFile(),
    qemuVersion: version,
    guestKernel: base.kernelPackage,
    probe: () => probe(base),
  });
  return {
    image: workload === 'coding' ? await codingImage(base) : base,
    qemuVersion: version,
    accel: decision,
    tscKhz: decision.accel === 'tcg' ? await hostTscKhz() : undefined,
  };
}

/** Best-effort, synchronous, never throws: what is known without building or probing (for describe() before boot). */
export function previewGuestEnv(
  binary: string,
  accel: 'auto' | 'kvm' | 'tcg',
  workload: Workload = 'steps',
): Partial<GuestEnv> {
  try {
    const version = qemuVersionSync(binary);
    const base = cachedImage();
    const image = base !== undefined && workload === 'coding' ? cachedCodingImage(base) : base;
    if (image === undefined) return { qemuVersion: version };
    return {
      qemuVersion: version,
      image,
      accel: peekAccelerator(accel, probeCacheFile(), version, image.kernelPackage),
    };
  } catch {
    return {};
  }
}
