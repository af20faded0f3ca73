// Whether QEMU is installed: the real-VM tests skip (with a warning naming the package) where it is not.
import { execFileSync } from 'node:child_process';

export function hasQemu(): boolean {
  try {
    execFileSync('qemu-system-x86_64', ['--version'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}
