// The conformance kit's report says plainly which classes of guest state it did not check (an adapter whose restored
// sandbox has an empty /tmp, a wall clock set back or identical randomness in clones passes every check): on the
// terminal under the table, whatever the verdict, and in --json as `notChecked`.
import { describe, expect, it } from 'vitest';
import { checksJson, formatChecks } from '../../harness/commands/target.js';
import { CHECKS, type CheckResult } from '../../harness/conformance/battery.js';
import type { EffectsCheckResult } from '../../harness/conformance/effects-check.js';

const results = (verdict: 'pass' | 'fail'): CheckResult[] =>
  CHECKS.map(([id, title], i) => ({ id, title, verdict: i === 1 ? verdict : 'pass', evidence: 'seen' }));

const effects: EffectsCheckResult = { verdict: 'not-declared', evidence: 'declares no way' };

/** The classes issues 30 and 34 name: each must be listed, in words a reader finds. */
const NAMED = [
  /\/tmp and \/dev\/shm/,
  /wall clock and monotonic clock/,
  /randomness of clones/,
  /reaches the effect ledger/,
];

describe('soak target check: what it did not check', () => {
  it.each(['pass', 'fail'] as const)('the table lists the unchecked classes (verdict %s)', (verdict) => {
    const text = formatChecks(results(verdict), effects);
    const at = text.indexOf('not checked');
    expect(at, text).toBeGreaterThan(0);
    const block = text.slice(at);
    for (const n of NAMED) expect(block, text).toMatch(n);
    if (verdict === 'pass') expect(text).toMatch(/^verdict: PASS \(every check above; not the classes listed/m);
  });

  it('--json carries them as notChecked', () => {
    const j = JSON.parse(checksJson(results('pass'), effects)) as { checks: unknown[]; notChecked: string[] };
    expect(j.checks).toHaveLength(CHECKS.length);
    for (const n of NAMED)
      expect(
        j.notChecked.some((c) => n.test(c)),
        String(n),
      ).toBe(true);
  });
});
