// `soak target check`'s effects line: "not declared" is no failure (exit 0, verdict PASS), a target that declares
// effects but cannot reach the ledger fails the run (exit 1, named in the verdict), an adapter fault is exit 5; --json
// carries the line as `effects`.
import { describe, expect, it } from 'vitest';
import { checksExitCode, checksJson, formatChecks } from '../../harness/commands/target.js';
import { CHECKS, type CheckResult } from '../../harness/conformance/battery.js';
import type { EffectsCheckResult } from '../../harness/conformance/effects-check.js';

const passed: CheckResult[] = CHECKS.map(([id, title]) => ({ id, title, verdict: 'pass', evidence: 'seen' }));
const e = (verdict: EffectsCheckResult['verdict']): EffectsCheckResult => ({ verdict, evidence: 'what it saw' });

describe('soak target check: the effects line', () => {
  it('not declared: reported, not a failure', () => {
    const text = formatChecks(passed, e('not-declared'));
    expect(text).toMatch(/^effects: not declared {2}what it saw$/m);
    expect(text).toMatch(/^verdict: PASS /m);
    expect(checksExitCode(passed, e('not-declared'))).toBe(0);
  });

  it('declared but unreachable: one FAIL line, the verdict names it, exit 1', () => {
    const text = formatChecks(passed, e('fail'));
    expect(text.split('\n').filter((l) => l.startsWith('effects: '))).toEqual(['effects: FAIL  what it saw']);
    expect(text).toMatch(/^verdict: FAIL \(effects\)$/m);
    expect(checksExitCode(passed, e('fail'))).toBe(1);
    expect(checksExitCode(passed, e('adapter-fault'))).toBe(5);
    expect(checksExitCode(passed, e('pass'))).toBe(0);
  });

  it('--json carries it', () => {
    const j = JSON.parse(checksJson(passed, e('fail'))) as { effects: EffectsCheckResult };
    expect(j.effects).toEqual({ verdict: 'fail', evidence: 'what it saw' });
  });
});
