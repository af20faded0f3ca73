// Capture the tested environment for reports: host CPU, kernel, Node, harness version, git commit, target facts.
// Never reads environment variables: nothing secret can reach a public report from here.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './repo-root.js';
import { roundTo } from './round.js';

export interface Environment {
  os: string;
  arch: string;
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  /** Kernel release (os.release(), e.g. 6.1.0-40-cloud-amd64); older journals hold the build string here. */
  kernel: string;
  /** The kernel's build string (os.version(), e.g. "#1 SMP PREEMPT_DYNAMIC Debian 6.1.153-1"); absent in older journals. */
  kernelBuild?: string;
  /** What the machine runs inside: "vm: kvm, container: docker", "none", or "unknown"; absent in older journals. */
  virtualization?: string;
  node: string;
  harnessVersion: string;
  gitCommit: string;
  /** Target-specific facts (accelerator, QEMU version, guest image hash...). */
  target: Record<string, string | number | boolean>;
}

function harnessVersion(): string {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

/** The harness's own commit; 'unknown' when it is not a git checkout (an installed package sits in its user's repo). */
function gitCommit(): string {
  if (!existsSync(path.join(repoRoot(), '.git'))) return 'unknown';
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: repoRoot(),
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
      env: {},
    });
    const commit = out.toString().trim();
    return /^[0-9a-f]{40}$/.test(commit) ? commit : 'unknown';
  } catch {
    return 'unknown';
  }
}

/** One systemd-detect-virt answer (`--vm` or `--container`): its word, 'none', or null when the tool is absent. */
function detectVirt(flag: '--vm' | '--container'): string | null {
  try {
    const out = execFileSync('systemd-detect-virt', [flag], {
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
      env: {},
    });
    return out.toString().trim() || 'none';
  } catch (err) {
    // it exits 1 after printing "none" when there is nothing to detect
    const stdout = (err as { stdout?: Buffer }).stdout?.toString().trim();
    return stdout !== undefined && stdout !== '' ? stdout : null;
  }
}

/** The first readable line of `file`, trimmed, or ''. */
function firstLine(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n')[0]!.trim();
  } catch {
    return '';
  }
}

/**
 * Virtualisation under this machine: systemd-detect-virt's VM and container answers when it is installed, else the
 * DMI vendor/product and the CPU's "hypervisor" flag (which only says that there is one).
 */
export function detectVirtualization(): string {
  const vm = detectVirt('--vm');
  const container = detectVirt('--container');
  if (vm !== null || container !== null) {
    const parts = [
      vm && vm !== 'none' ? `vm: ${vm}` : '',
      container && container !== 'none' ? `container: ${container}` : '',
    ];
    return parts.filter((p) => p !== '').join(', ') || 'none';
  }
  const dmi = [firstLine('/sys/class/dmi/id/sys_vendor'), firstLine('/sys/class/dmi/id/product_name')].filter(Boolean);
  let flagged = false;
  try {
    flagged = /^flags\s*:.*\bhypervisor\b/m.test(readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    // not Linux
  }
  if (flagged) return `vm${dmi.length > 0 ? `: ${dmi.join(' ')}` : ' (hypervisor flag)'}`;
  return dmi.length > 0 ? `none (${dmi.join(' ')})` : 'unknown';
}

/** Describe this machine; `target` comes from the target's describe(). */
export function captureEnvironment(target: Record<string, string | number | boolean>): Environment {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: roundTo(os.totalmem() / 2 ** 30, 1),
    kernel: os.release(),
    kernelBuild: os.version(),
    virtualization: detectVirtualization(),
    node: process.version,
    harnessVersion: harnessVersion(),
    gitCommit: gitCommit(),
    target,
  };
}

/**
 * A machine as a public report may name it: CPU model, cores, kernel release and an 8-hex hash of them (never the
 * hostname or a machine id, which would identify the host).
 */
export function machineLabel(env: Pick<Environment, 'cpuModel' | 'cores' | 'kernel' | 'os'>): string {
  const kernel = kernelRelease(env);
  const hash = createHash('sha256').update(`${env.cpuModel}\0${env.cores}\0${kernel}`).digest('hex').slice(0, 8);
  return `${env.cpuModel}, ${env.cores} cores, kernel ${kernel} (#${hash})`;
}

/** The kernel release; older journals hold the build string ("#1 SMP ...") in `kernel`, their `os` has the release. */
export function kernelRelease(env: Pick<Environment, 'kernel' | 'os'>): string {
  return env.kernel.startsWith('#') ? (env.os.split(' ')[1] ?? env.kernel) : env.kernel;
}
