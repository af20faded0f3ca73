// A distribution gate's bar is drawn on its chart as a labelled rule carrying the unit; charts of other metrics get none.
import { describe, expect, test } from 'vitest';
import { reportChartSpecs } from '../../../harness/report/charts/charts.js';
import { thresholdRules } from '../../../harness/report/charts/threshold-rule.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from '../../../harness/gates/evaluate.js';
import { makeAnalysis } from '../fixtures.js';

const analysis = makeAnalysis({ cycles: 80, seed: 5 });
const gates = evaluateGates(loadGates(), analysis.summary, gateEvidenceFromAnalysis(analysis, analysis.cadence));

describe('threshold rules', () => {
  test('one rule per distribution gate of the metric, labelled with the gate, statistic and unit', () => {
    expect(thresholdRules(gates, 'downtimeMs')).toEqual([{ bar: 1000, label: 'gate 4: p95 < 1000 ms' }]);
    expect(thresholdRules(gates, 'checkpointPauseMs')).toEqual([{ bar: 50, label: 'gate 3: p95 < 50 ms' }]);
    expect(thresholdRules(gates, 'killResume')).toEqual([]);
  });

  test('the downtime and pause charts carry their gate rule; the store chart none, on a log axis', () => {
    const specs = new Map(reportChartSpecs(analysis, gates).map((c) => [c.name, JSON.stringify(c.spec)]));
    for (const name of ['downtime-histogram', 'downtime-ecdf'])
      expect(specs.get(name), name).toContain('"label":"gate 4: p95 < 1000 ms"');
    expect(specs.get('checkpoint-pause')).toContain('"label":"gate 3: p95 < 50 ms"');
    expect(specs.get('store-growth')).not.toContain('gate ');
    expect(specs.get('store-growth')).toContain('"scale":{"type":"log"}'); // stored bytes are not flat against logical
  });
});
