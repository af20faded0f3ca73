// The terminal gate table prints each gate's figures through gate-format.ts: a rate as "100% (100/100)", never "1 (100/100)".
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates } from '../../../harness/gates/evaluate.js';
import type { GateEvidence } from '../../../harness/gates/types.js';
import { formatGateTable } from '../../../harness/report/text/gate-table.js';
import { healthySamples, healthySummary } from '../../gates/fixtures.js';

const clean: GateEvidence = { lostBeyondCheckpoint: 0, samples: healthySamples() };

describe('formatGateTable', () => {
  it('prints a header and one aligned row per gate, in the units summary.md uses', () => {
    const table = formatGateTable(evaluateGates(loadGates(), healthySummary(), clean));
    const lines = table.split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(
      /^#\s+gate\s+threshold\s+observed\s+95% interval\s+judged on\s+n \(min\)\s+verdict\s+note$/,
    );
    expect(lines[7]).toMatch(
      /^06\s+Kill-and-resume success\s+wilson95\.lo >= 95%\s+100% \(100\/100\)\s+\[96\.3%, 100%\]\s+lower end, 96\.3%\s+100 \(73\)\s+pass\s+n needed with zero failures: 73/,
    );
    expect(lines[5]).toMatch(
      /^04\s+Session resume latency p95\s+p95 < 1000 ms\s+290 ms\s+\[\d+ ms, 300 ms\]\s+point estimate; 95% bound ≤ \d+ ms\s+100 \(59\)\s+pass, solid at 95%/,
    );
    expect(table).not.toMatch(/\b1 \(100\/100\)/); // the old table printed a rate as its raw proportion
  });
});
