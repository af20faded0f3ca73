// The walkthrough's measured durability: per fault kind, trials, outcomes and the Wilson 95% interval, and what was
// tested and what was not, each with its n (a SIGKILL-only run states it too, from its cycle counts).
import type { DurabilityRow } from '../../analysis/durability.js';
import type { Summary } from '../../analysis/summary.js';
import { wilson } from '../../stats/wilson.js';
import { fmtPct } from './format.js';

const WHAT: Record<DurabilityRow['kind'], string> = {
  sigkill: 'process kill (SIGKILL of the session host group; the page cache survives)',
  'power-loss': "power loss of the store's file system (lazyfs drops every write and folder change not fsynced)",
  enospc: 'ENOSPC injected into one of the next writes under the store (lazyfs)',
  eio: 'EIO injected into one of the next writes under the store (lazyfs)',
  freeze:
    'freeze (SIGSTOP of the session host group, then SIGCONT: the same session must carry on with no lost steps; past the host timeout it is killed and resumed)',
  'host-crash':
    "host crash (SIGKILL of the session host group, its kill list and the warm standbys at one instant, with several sessions every session's host in one loop: a cold host restores; the page cache survives)",
  'checkpoint-storm':
    "checkpoint storm (every session's host asked for a checkpoint in one loop, each then SIGKILLed inside its storm checkpoint's write: the sessions' checkpoints compete for the disk and the shared store at once)",
  'memory-pressure':
    "memory pressure (the sessions' hosts in one memory cgroup whose limit is lowered until the kernel's OOM killer kills a process: each trial is a session the kernel picked, then resumed; a session it spared takes its own planned SIGKILL, counted as a process kill)",
};

/** What no fault kind of this harness reaches; always n = 0. */
const NEVER_TESTED = [
  'a second region (in every run the store, the session host and the runner share a machine)',
  "a real disk's volatile write cache (lazyfs sits above the kernel; the disk's own cache is never cut)",
  'firmware that acknowledges a flush it did not do',
];

/** The SIGKILL row of a run without a fault event (its cycles were all plain kills); none for a run of no cycles. */
export function plainKillRows(cycles: Summary['cycles']): DurabilityRow[] {
  if (cycles.total === 0) return [];
  const { total, resumed, failed, indeterminate } = cycles;
  const interval = wilson(resumed, resumed + failed);
  return [{ kind: 'sigkill', trials: total, ok: resumed, fail: failed, indeterminate, causes: {}, interval }];
}

/** What was tested and what was not, each with its n, as sentences (plain text; none for no rows). */
export function durabilityStatements(rows: readonly DurabilityRow[]): string[] {
  if (rows.length === 0) return [];
  const tested = new Set(rows.map((r) => r.kind));
  return [
    ...rows.map((r) => `Tested: ${WHAT[r.kind]}, n = ${r.trials}.`),
    ...(Object.keys(WHAT) as DurabilityRow['kind'][])
      .filter((k) => !tested.has(k))
      .map((k) => `Not tested: ${WHAT[k]}, n = 0.`),
    ...NEVER_TESTED.map((what) => `Not tested: ${what}, n = 0.`),
  ];
}

/** The indeterminate count with its causes, e.g. `3 (eio 2, host-hung 1)`. */
function indeterminateCell(r: DurabilityRow): string {
  const causes = Object.entries(r.causes).sort(([a], [b]) => a.localeCompare(b));
  return causes.length === 0
    ? String(r.indeterminate)
    : `${r.indeterminate} (${causes.map(([c, n]) => `${c} ${n}`).join(', ')})`;
}

/** Markdown lines of the measured-durability subsection (none for no rows). */
export function durabilityLines(rows: readonly DurabilityRow[]): string[] {
  if (rows.length === 0) return [];
  return [
    '### Measured, per fault kind',
    '',
    '| Fault | Trials | ok | fail | indeterminate (cause) | Resumed and verified (Wilson 95%) |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.kind} | ${r.trials} | ${r.ok} | ${r.fail} | ${indeterminateCell(r)} | ${
          r.interval
            ? `${fmtPct(r.ok / (r.ok + r.fail))} [${fmtPct(r.interval[0], 'down')}, ${fmtPct(r.interval[1], 'up')}]`
            : 'n/a'
        } |`,
    ),
    '',
    ...durabilityStatements(rows).map((line) => `- ${line}`),
    '',
  ];
}
