// Boot samples are data beside the kill plan: ids split over shards as cycles are, the scenario field defaults to none
// and is validated, and every cycle's kill plan is the same with or without them.
import { describe, expect, it } from 'vitest';
import { bootSampleIds } from '../../harness/run/boot-samples.js';
import { planFault, planKill } from '../../harness/nemesis/plan.js';
import { loadScenario, parseScenario } from '../../harness/scenario/scenario.js';
import { thrown } from '../helpers/thrown.js';

describe('bootSampleIds', () => {
  it('a run owns 1..n; shards split them disjointly and together hold them all', () => {
    expect(bootSampleIds(0)).toEqual([]);
    expect(bootSampleIds(4)).toEqual([1, 2, 3, 4]);
    const shards = [0, 1, 2, 3].map((index) => bootSampleIds(59, { index, count: 4 }));
    expect(shards.map((s) => s.length)).toEqual([15, 15, 15, 14]);
    expect(shards.flat().sort((a, b) => a - b)).toEqual(bootSampleIds(59));
  });
});

describe('scenario bootSamples', () => {
  it('defaults to 0; the default scenario boots 64 (a p95 needs n >= 59; its anytime decision 65 with the session own boot)', () => {
    expect(parseScenario('name: t\n', 't.yaml').bootSamples).toBe(0);
    expect(loadScenario('default').scenario.bootSamples).toBe(64);
    expect(loadScenario('default', { bootSamples: 0 }).scenario.bootSamples).toBe(0);
  });

  it('a negative or fractional count is named with the file and field', () => {
    const err = thrown(() => parseScenario('name: t\nbootSamples: -1\n', 't.yaml'));
    expect(err.message).toMatch(/t\.yaml: bootSamples: /);
    expect(thrown(() => parseScenario('name: t\nbootSamples: 2.5\n', 't.yaml')).message).toMatch(/bootSamples/);
  });

  it('leaves every cycle kill plan and fault of the default scenario as it was', () => {
    const { scenario } = loadScenario('default');
    const without = { ...scenario, bootSamples: 0 };
    expect(scenario.bootSamples).toBeGreaterThan(0);
    for (let c = 1; c <= 200; c++) {
      expect(planKill(scenario, c)).toEqual(planKill(without, c));
      expect(planFault(scenario, c)).toBe(planFault(without, c));
    }
  });
});
