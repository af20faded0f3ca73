// Host TSC frequency for TCG guests: a loaded host makes the guest's own PIT calibration fail or hang, so we pass it in.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { tempPathFor, writeFileAtomic } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { sha256File } from './files.js';
import { vmImagesDir } from './image.js';
import { loadExeca } from './lazy-execa.js';

let cached: number | undefined;

function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Host TSC kHz, measured by the helper vm-images/host/tsc-khz.c (compiled once into vm-images/build/); the value is
 * cached in vm-images/build/host-tsc.json for the current host boot, so new session hosts do not measure it again.
 */
export async function hostTscKhz(): Promise<number> {
  if (cached !== undefined) return cached;
  const cacheFile = path.join(vmImagesDir(), 'build', 'host-tsc.json');
  const id = bootId();
  try {
    const c = JSON.parse(readFileSync(cacheFile, 'utf8')) as { bootId?: string; khz?: number };
    if (id !== 'unknown' && c.bootId === id && typeof c.khz === 'number') return (cached = c.khz);
  } catch {
    // no cache yet
  }
  const execa = await loadExeca(); // not before: a cached answer needs no process
  const src = path.join(vmImagesDir(), 'host', 'tsc-khz.c');
  const bin = path.join(vmImagesDir(), 'build', `tsc-khz-${(await sha256File(src)).slice(0, 12)}`);
  if (!existsSync(bin)) {
    mkdirSync(path.dirname(bin), { recursive: true });
    const tmpBin = tempPathFor(bin); // unguessable: nothing can be planted at the compiler's output path
    await execa('gcc', ['-O2', '-o', tmpBin, src], { timeout: 60_000 });
    await execa('mv', ['-f', tmpBin, bin], { timeout: 10_000 });
  }
  const r = await execa(bin, [], { timeout: 10_000 });
  const khz = Number(r.stdout.trim());
  if (!Number.isFinite(khz) || khz < 100_000 || khz > 20_000_000) {
    throw new TargetError(`host TSC frequency measurement gave "${r.stdout.trim()}" kHz, which is not plausible`);
  }
  cached = Math.round(khz);
  writeFileAtomic(cacheFile, `${JSON.stringify({ bootId: id, khz: cached })}\n`);
  return cached;
}
