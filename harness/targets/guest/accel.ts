// Accelerator choice for the microvm target: KVM only if a bounded boot probe succeeds here (result cached), else TCG.
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { TargetError } from '../../core/errors.js';

/** How a VM target's guest runs: hardware virtualisation or QEMU's software emulation. */
export type Accelerator = 'kvm' | 'tcg';

const versions = new Map<string, string>();

/** The version in `qemu-system-x86_64 --version` output ("QEMU emulator version 7.2.22 (...)"). */
const versionIn = (stdout: string): string => /version (\S+)/.exec(stdout)?.[1] ?? 'unknown';

// `--version` through node:child_process, not execa: a session's first host runs it on its way to the guest, and
// execa's import alone is slow (lazy-execa.ts).
const execFileAsync = promisify(execFile);

/** `qemu-system-x86_64 --version` as "7.2.22"; throws a TargetError naming the Debian package when QEMU is missing. */
export async function qemuVersion(binary: string): Promise<string> {
  const known = versions.get(binary);
  if (known !== undefined) return known;
  let stdout: string;
  try {
    ({ stdout } = await execFileAsync(binary, ['--version'], { timeout: 10_000 }));
  } catch (err) {
    throw new TargetError(
      `cannot run ${binary} --version (${(err as Error).message.split('\n')[0]}): install the Debian package qemu-system-x86`,
    );
  }
  const v = versionIn(stdout);
  versions.set(binary, v);
  return v;
}

/** Synchronous variant for describe() before boot; 'unknown' when QEMU cannot run. */
export function qemuVersionSync(binary: string): string {
  const known = versions.get(binary);
  if (known !== undefined) return known;
  let v = 'unknown';
  try {
    v = versionIn(execFileSync(binary, ['--version'], { timeout: 10_000, encoding: 'utf8', stdio: 'pipe' }));
  } catch {
    // cannot run: 'unknown'
  }
  if (v !== 'unknown') versions.set(binary, v);
  return v;
}

/** What resolveAccelerator would answer without probing (describe() before boot); undefined if a probe is needed. */
export function peekAccelerator(
  requested: 'auto' | Accelerator,
  cacheFile: string,
  qemuVer: string,
  guestKernel: string,
): AccelDecision | undefined {
  if (requested !== 'auto') return { accel: requested, reason: 'forced' };
  if (!kvmUsable()) return { accel: 'tcg', reason: 'no usable /dev/kvm' };
  try {
    const c = JSON.parse(readFileSync(cacheFile, 'utf8')) as ProbeCache;
    if (c.key === `${qemuVer}|${guestKernel}|${os.release()}`)
      return { accel: c.kvmBoots ? 'kvm' : 'tcg', reason: `kvm probe ${c.kvmBoots ? 'ok' : 'failed'} (cached)` };
  } catch {
    // no cache yet
  }
  return undefined;
}

function kvmUsable(): boolean {
  try {
    accessSync('/dev/kvm', constants.R_OK | constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

interface ProbeCache {
  key: string;
  kvmBoots: boolean;
  probeMs: number;
  probedAt: string;
}

export interface AccelDecision {
  accel: Accelerator;
  /** Why: "forced", "no /dev/kvm", "kvm probe ok", "kvm probe failed", plus "(cached)". */
  reason: string;
}

/**
 * Resolve `auto` to kvm or tcg. The probe boots the guest under KVM and must see a heartbeat within its own bound;
 * its result is cached in `cacheFile`, keyed by QEMU version, guest kernel package and host kernel.
 */
export async function resolveAccelerator(
  requested: 'auto' | Accelerator,
  opts: { cacheFile: string; qemuVersion: string; guestKernel: string; probe: () => Promise<boolean> },
): Promise<AccelDecision> {
  if (requested !== 'auto') return { accel: requested, reason: 'forced' };
  if (!kvmUsable()) return { accel: 'tcg', reason: 'no usable /dev/kvm' };
  const key = `${opts.qemuVersion}|${opts.guestKernel}|${os.release()}`;
  if (existsSync(opts.cacheFile)) {
    try {
      const c = JSON.parse(readFileSync(opts.cacheFile, 'utf8')) as ProbeCache;
      if (c.key === key)
        return { accel: c.kvmBoots ? 'kvm' : 'tcg', reason: `kvm probe ${c.kvmBoots ? 'ok' : 'failed'} (cached)` };
    } catch {
      // unreadable cache: probe again
    }
  }
  const t0 = Date.now();
  const kvmBoots = await opts.probe().catch(() => false);
  const cache: ProbeCache = { key, kvmBoots, probeMs: Date.now() - t0, probedAt: new Date().toISOString() };
  mkdirSync(path.dirname(opts.cacheFile), { recursive: true });
  writeFileSync(opts.cacheFile, `${JSON.stringify(cache, null, 2)}\n`);
  return { accel: kvmBoots ? 'kvm' : 'tcg', reason: `kvm probe ${kvmBoots ? 'ok' : 'failed'}` };
}
