// execa, imported on first use. Its import is slow (bench/README.md), and a cold host that restores a micro-VM loads
// the modules that build images, disks and the TSC helper without running them on that path.
import type { execa as Execa } from 'execa';

let loading: Promise<typeof Execa> | undefined;

/** execa itself (the module is imported once, on the first call). */
export function loadExeca(): Promise<typeof Execa> {
  return (loading ??= import('execa').then((m) => m.execa));
}
