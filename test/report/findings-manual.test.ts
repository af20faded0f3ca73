// A demo run's report says its interruptions were typed by a person, with n, resumed and the Wilson interval; a soak's
// report does not.
import { describe, expect, it } from 'vitest';
import { findings } from '../../harness/report/findings.js';
import { makeAnalysis } from './fixtures.js';

describe('findings of a run whose kills were typed by a person', () => {
  it('leads with "N interruptions typed by a person, k resumed" and the Wilson interval', () => {
    const a = makeAnalysis({ cycles: 10, failedCycles: [4] });
    const manual = { ...a, summary: { ...a.summary, manualKills: true } };
    const first = findings(manual)[0]!;
    expect(first).toMatch(
      /^10 interruptions typed by a person .*, 9 resumed and verified: 9 of 10 judged \(Wilson 95%: /,
    );
  });

  it('a soak (no manualKills) says nothing about people', () => {
    expect(findings(makeAnalysis({ cycles: 10 })).join(' ')).not.toContain('typed by a person');
  });
});
