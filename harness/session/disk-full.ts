// Whether a disk is full: how a host (and the runner, for a host that died silently) tells ENOSPC from a crash.
import { statfsSync } from 'node:fs';
import { DISK_FULL_BYTES } from '../core/errors.js';

/** True when the file system holding `dir` has less than DISK_FULL_BYTES free (false when it cannot be asked). */
export function diskFull(dir: string): boolean {
  try {
    const st = statfsSync(dir);
    return st.bavail * st.bsize < DISK_FULL_BYTES;
  } catch {
    return false;
  }
}
