// A re-check runs the checker again over the observation; violations the runner found outside the checker (the store
// verified after an injected write error) are not in the observation and must survive it, or a damaged store would be
// re-judged ok (seen: 5 store-damaged cycles reported as 11/11 resumed and 0 atomicity violations).
import { describe, expect, it } from 'vitest';
import { keepOutsideFindings } from '../../harness/analysis/recheck.js';

describe('keepOutsideFindings', () => {
  const damaged = { code: 'store-damaged' as const, message: 'verify found 1 problem' };
  it('keeps a journaled store-damaged violation over a re-check that finds nothing: the cycle still fails', () => {
    expect(keepOutsideFindings({ outcome: 'ok', violations: [] }, [damaged])).toEqual({
      outcome: 'fail',
      violations: [damaged],
    });
  });

  it('keeps session-hung and checkpoint-stuck: a stuck session is found by the runner, not in the observation', () => {
    for (const code of ['session-hung', 'checkpoint-stuck'] as const) {
      const v = { code, message: 'stuck while its host answered' };
      expect(keepOutsideFindings({ outcome: 'ok', violations: [] }, [v])).toEqual({ outcome: 'fail', violations: [v] });
    }
  });

  it("does not keep the checker's own codes (the re-check decides those), nor invent anything", () => {
    const digest = { code: 'digest' as const, message: 'mem digest differs' };
    expect(keepOutsideFindings({ outcome: 'ok', violations: [] }, [digest])).toEqual({ outcome: 'ok', violations: [] });
    expect(keepOutsideFindings({ outcome: 'ok', violations: [] }, [])).toEqual({ outcome: 'ok', violations: [] });
  });
});
