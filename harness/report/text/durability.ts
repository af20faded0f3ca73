// The walkthrough's measured durability: per fault kind, trials, outcomes and the Wilson 95% interval, and what was
// tested and what was not, each with its n.
import type { DurabilityRow } from '../../analysis/durability.js';

const WHAT: Record<DurabilityRow['kind'], string> = {
  sigkill: 'process kill (SIGKILL of the session host group; the page cache survives)',
  'power-loss': "power loss of one host's file system (lazyfs drops every write and folder change not fsynced)",
  enospc: 'ENOSPC injected into one of the next writes under the store (lazyfs)',
  eio: 'EIO injected into one of the next writes under the store (lazyfs)',
};

const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The indeterminate count with its causes, e.g. `3 (eio 2, host-hung 1)`. */
function indeterminateCell(r: DurabilityRow): string {
  const causes = Object.entries(r.causes).sort(([a], [b]) => a.localeCompare(b));
  return causes.length === 0
    ? String(r.indeterminate)
    : `${r.indeterminate} (${causes.map(([c, n]) => `${c} ${n}`).join(', ')})`;
}

/** Markdown lines of the measured-durability subsection (none when no fault but SIGKILL was delivered). */
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
          r.interval ? `${pct(r.ok / (r.ok + r.fail))} [${pct(r.interval[0])}, ${pct(r.interval[1])}]` : 'n/a'
        } |`,
    ),
    '',
    ...rows.map((r) => `- Tested: ${WHAT[r.kind]}, n = ${r.trials}.`),
    ...(['enospc', 'eio'] as const)
      .filter((k) => !rows.some((r) => r.kind === k))
      .map((k) => `- Not tested: ${WHAT[k]}, n = 0.`),
    "- Not tested (n = 0): freeze (SIGSTOP), a second region, a real disk's volatile write cache, firmware that acknowledges a flush it did not do.",
    '',
  ];
}
