// gateEvidenceFromAnalysis: boot and restore times reach the gates as raw samples, so gate 1 gets its order-statistic interval.
import { describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from '../../harness/gates/evaluate.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { runStartEvent } from '../helpers/journal-events.js';

const scenario = parseScenario('name: boots\ncycles: 80\nseed: 3\nsession: fresh\n', 'boots.yaml');
const base = { schemaVersion: 1 as const, t: 0 };

/** A run that boots 80 times (300..379 ms) and restores 80 times (50..129 ms). */
function journal(): JournalEvent[] {
  const events: JournalEvent[] = [runStartEvent(scenario, 'boots')];
  for (let i = 0; i < 80; i++) {
    events.push({ ...base, type: 'boot', cycle: i + 1, bootMs: 300 + i, nonce: `n${i}` });
    events.push({ ...base, type: 'restore', cycle: i + 1, seq: i + 1, step: 10 * i, restoreMs: 50 + i });
  }
  return events;
}

describe('gateEvidenceFromAnalysis', () => {
  it('passes every boot and restore time through as raw samples', () => {
    const analysis = analyze(journal());
    const evidence = gateEvidenceFromAnalysis(analysis, analysis.cadence, 1);
    expect(Array.from(evidence.samples?.bootMs ?? [])).toEqual(Array.from({ length: 80 }, (_x, i) => 300 + i));
    expect(Array.from(evidence.samples?.restoreMs ?? [])).toHaveLength(80);
  });

  it('gate 1 (boot time p95) gets an order-statistic interval instead of "no raw samples"', () => {
    const analysis = analyze(journal());
    const boot = evaluateGates(loadGates(), analysis.summary, gateEvidenceFromAnalysis(analysis)).find(
      (g) => g.id === 1,
    )!;
    expect(boot.n).toBe(80);
    expect(boot.note).not.toContain('no raw samples');
    expect(boot.interval).not.toBeNull();
    const [lo, hi] = boot.interval!;
    expect(lo).toBeLessThanOrEqual(boot.value!);
    expect(hi).toBeGreaterThanOrEqual(boot.value!);
    expect(boot.bounds?.[1]).not.toBeNull(); // 80 >= 72 (two-sided) >= 59: the largest boot bounds p95 from above
    expect(boot.verdict).toBe('pass');
    expect(boot.solid).toBe(true);
  });
});
