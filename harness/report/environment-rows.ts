// The tested environment as label/value rows for the report (credential-looking text masked); never reads env vars.
import { WARM_SOURCE } from '../store/read/warm-chunks.js';
import { kernelRelease, type Environment } from '../core/environment.js';
import { redactEnvironment } from './redact.js';

const TARGET_LABELS: Record<string, string> = {
  accelerator: 'Accelerator',
  qemuVersion: 'QEMU version',
  imageHash: 'Guest image hash',
  freshStart: 'Fresh session start',
  workload: 'Guest workload',
  dirtyKiBPerStep: 'RAM dirtied per agent step (KiB, pseudo-random)',
};

/** How a fresh microvm session started (target fact `freshStart`), in words; other values as they are. */
const FRESH_START: Record<string, string> = {
  cold: 'cold boot (the kernel boots for every new session)',
  template:
    'template snapshot (a guest booted once, restored and given a new identity; boot time = restore to first verified heartbeat)',
};

/** What ran in a microvm guest (target fact `workload`), in words. */
const WORKLOAD: Record<string, string> = {
  steps: 'agent steps only (per step: a durable log line, a memory chain, a tool process chain)',
  coding:
    'coding agent beside the agent steps (unpack a source tree, edit it, compile it with tcc, run its tests, keep a server process; a failure of any of them fails the cycle)',
};
/** Target facts told in words by value. */
const IN_WORDS: Record<string, Record<string, string>> = { freshStart: FRESH_START, workload: WORKLOAD };

/** How resumes were started: a warm standby host, a pool host, or a cold one (older summaries do not say). */
export function resumeHostRow(standby: boolean | 'pool' | undefined): [string, string] {
  if (standby === undefined) return ['Resume host', 'not recorded (older run)'];
  if (standby === 'pool')
    return [
      'Resume host',
      'pool host (started ahead, target prepared, store reads warmed on bytes of its own; it read nothing of the session before the kill: every part from the store at the hand-off)',
    ];
  return [
    'Resume host',
    standby
      ? 'warm standby (a host started ahead, store open, target prepared, a warm copy of the newest checkpoint kept; handed the restore at the kill)'
      : 'cold (a new session host started after each kill)',
  ];
}

/**
 * Where restores read the checkpoint (targets that say: microvm), e.g. "hot local copy, verified against the store's
 * SHA-256 before the guest ran: 11 of 12 restores; 1 read from the store (ram: digest mismatch)" (the RAM stream is
 * hashed while QEMU loads it; the guest never runs on bytes that did not verify). Null: nothing recorded.
 */
export function restoreSourceRow(sources: Record<string, number> | undefined): [string, string] | null {
  if (sources === undefined) return null;
  const total = Object.values(sources).reduce((s, n) => s + n, 0);
  const hot = sources['hot'] ?? 0;
  const fromStore = sources['store'] ?? 0;
  const warm = sources[WARM_SOURCE] ?? 0;
  const fellBack = Object.entries(sources).filter(([k]) => k !== 'hot' && k !== 'store' && k !== WARM_SOURCE);
  const warmText = (n: number): string =>
    `the store through the warm standby's copy (every chunk checked against its SHA-256 as the standby read it, before the kill; what was committed after, read at the kill): ${n} of ${total} restores`;
  if (hot === 0 && fellBack.length === 0)
    return [
      'Restore source',
      [
        ...(fromStore > 0 || warm === 0
          ? [`the store (every part rebuilt and checked against its SHA-256): ${fromStore} of ${total} restores`]
          : []),
        ...(warm > 0 ? [warmText(warm)] : []),
      ].join('; '),
    ];
  const why = fellBack.map(([k, n]) => `${n}: ${k}`).join('; ');
  const back = fellBack.reduce((s, [, n]) => s + n, 0);
  const parts = [
    `hot local copy, verified against the store's SHA-256 before the guest ran: ${hot} of ${total} restores`,
    ...(back > 0 ? [`${back} read parts from the store instead (${why})`] : []),
    ...(fromStore > 0 ? [`${fromStore} read from the store`] : []),
    ...(warm > 0 ? [warmText(warm)] : []),
  ];
  return ['Restore source', parts.join('; ')];
}

/** Label/value rows: host CPU, memory, OS, kernel, Node, accelerator, QEMU, guest image hash, other target facts, harness version, git commit. */
export function environmentRows(environment: Environment, target: string): Array<[string, string]> {
  const env = redactEnvironment(environment);
  const rows: Array<[string, string]> = [
    ['Host CPU', `${env.cpuModel} (${env.cores} cores, ${env.arch})`],
    ['Memory', `${env.memoryGiB} GiB`],
    ['OS', env.os],
    ['Kernel', kernelRelease(env)],
    ...(env.kernelBuild !== undefined ? ([['Kernel build', env.kernelBuild]] as Array<[string, string]>) : []),
    ['Virtualisation', env.virtualization ?? 'not recorded (older run)'],
    ['Node', env.node],
    ['Target', target],
  ];
  for (const [key, label] of Object.entries(TARGET_LABELS)) {
    const value = env.target[key];
    if (value !== undefined) rows.push([label, IN_WORDS[key]?.[String(value)] ?? String(value)]);
  }
  if (env.target['accelerator'] === undefined && target === 'process')
    rows.push(['Accelerator', 'none (host process target, no VM)']);
  for (const [key, value] of Object.entries(env.target)) {
    if (!(key in TARGET_LABELS)) rows.push([`Target: ${key}`, String(value)]);
  }
  rows.push(['Harness version', env.harnessVersion], ['Git commit', env.gitCommit]);
  return rows;
}
