// The walkthrough's durability subsection states what was tested and what was not, each with its n: every fault
// kind of the harness appears once (tested with its trials, or not tested with n = 0), and so do the three things no
// fault reaches (a second region, a disk's write cache, firmware); a SIGKILL-only run gets its row from its counts.
import { describe, expect, it } from 'vitest';
import type { DurabilityRow } from '../../../harness/analysis/durability.js';
import { durabilityLines, plainKillRows } from '../../../harness/report/text/durability.js';
import { FAULT_KINDS } from '../../../harness/scenario/scenario.js';
import { wilson } from '../../../harness/stats/wilson.js';

const row = (kind: DurabilityRow['kind'], ok: number, fail: number, indeterminate = 0): DurabilityRow => ({
  kind,
  trials: ok + fail + indeterminate,
  causes: {},
  ok,
  fail,
  indeterminate,
  interval: wilson(ok, ok + fail),
});

describe('durabilityLines', () => {
  it('tests freeze and SIGKILL; states the other kinds and what no fault reaches as not tested, n = 0', () => {
    const lines = durabilityLines([row('freeze', 7, 0), row('sigkill', 3, 0, 1)]);
    expect(lines).toContain('| freeze | 7 | 7 | 0 | 0 | 100% [64.5%, 100%] |'); // bounds rounded outward, as every interval
    expect(lines.filter((l) => l.startsWith('- Tested: '))).toEqual([
      expect.stringMatching(/^- Tested: freeze \(SIGSTOP.*, n = 7\.$/),
      expect.stringMatching(/^- Tested: process kill .*, n = 4\.$/),
    ]);
    const notTested = lines.filter((l) => l.startsWith('- Not tested: '));
    expect(notTested).toHaveLength(9);
    for (const what of [
      'power loss',
      'ENOSPC',
      'EIO',
      'host crash',
      'checkpoint storm',
      'memory pressure',
      'a second region',
      'write cache',
      'firmware',
    ])
      expect(notTested.filter((l) => l.includes(what) && l.endsWith('n = 0.'))).toHaveLength(1);
  });

  it('names every fault kind exactly once, tested or not', () => {
    const lines = durabilityLines([row('power-loss', 5, 1)]).filter((l) => l.startsWith('- '));
    expect(lines).toHaveLength(FAULT_KINDS.length + 3);
  });

  it('a SIGKILL-only run: its row from the cycle counts; no cycles, no section', () => {
    const rows = plainKillRows({ total: 12, resumed: 10, failed: 1, indeterminate: 1 });
    expect(rows).toEqual([row('sigkill', 10, 1, 1)]);
    expect(durabilityLines(rows)).toContain(
      '- Tested: process kill (SIGKILL of the session host group; the page cache survives), n = 12.',
    );
    expect(durabilityLines(plainKillRows({ total: 0, resumed: 0, failed: 0, indeterminate: 0 }))).toEqual([]);
  });
});
