// Capture the tested environment for reports: host CPU, kernel, Node, harness version, git commit, target facts.
// Never reads environment variables: nothing secret can reach a public report from here.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from './repo-root.js';

export interface Environment {
  os: string;
  arch: string;
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  kernel: string;
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

/** Describe this machine; `target` comes from the target's describe(). */
export function captureEnvironment(target: Record<string, string | number | boolean>): Environment {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    kernel: os.version(),
    node: process.version,
    harnessVersion: harnessVersion(),
    gitCommit: gitCommit(),
    target,
  };
}
