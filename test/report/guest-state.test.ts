// The report's guest-state words (issue 33): the verdict's opening sentence says what it covers and what not in each
// case (not probed; promised but nothing examined; probed), and "Durability limits" writes each class not kept as a
// measured fact, a promised one as a gate-10 failure and an unpromised one as a limit, not a failure.
import { describe, expect, it } from 'vitest';
import type { GuestStateSummary } from '../../harness/analysis/guest-state-tally.js';
import { LATER_CLOCKS, STATE_CLASS_IDS } from '../../harness/check/survival.js';
import { guestStateLimits, guestStateMatrix, verdictScope } from '../../harness/report/guest-state.js';

const g = (promised: GuestStateSummary['promised'], examined: number): GuestStateSummary => ({
  examined,
  unprobed: 0,
  unexamined: 1,
  problems: ['the session ended before the probe examined it'],
  // as a soak's summary has them: no later clock reading (a soak reads the wall clock once)
  classes: STATE_CLASS_IDS.filter((c) => !LATER_CLOCKS.includes(c)).map((c) => {
    const lost = c === 'tmp-file' || c === 'pipe' ? examined : 0;
    return { class: c, survives: examined - lost, lost, changed: 0, notApplicable: 0, n: examined, survives95: null };
  }),
  promised,
  promisedKept: { successes: 0, trials: 0, wilson95: null },
});
const cycles = { total: 20, resumed: 20, failed: 0, indeterminate: 0 };

describe('guest state in the report', () => {
  it('opens the verdict with what it covers and what not', () => {
    expect(verdictScope({ cycles })).toMatch(
      /^This verdict covers: the workload's three chains .* 20 kill\/resume cycles; it does not cover: any other guest state .*not probed/,
    );
    expect(verdictScope({ cycles, guestState: g(['tmp-file'], 0) })).toContain(
      'and the promised classes tmp-file (gate 10); it does not cover: the guest state, no resume of which was examined',
    );
    const probed = verdictScope({ cycles, guestState: g(['tmp-file', 'env'], 20) });
    expect(probed).toContain('and the promised classes tmp-file, env (gate 10)');
    expect(probed).toContain(
      `it does not cover: classes measured lost or changed (pipe) and ${STATE_CLASS_IDS.length - LATER_CLOCKS.length - 3} classes measured kept but not promised`,
    );
  });

  it("names the coding workload's builds and tests in what it covers, or says none was checked", () => {
    const work = (min: number, max: number) => ({ resumes: 12, iterations: { min, p50: max, max }, failed: 0 });
    expect(verdictScope({ cycles, work: work(3, 25) })).toMatch(
      /^This verdict covers: the workload's three chains \(.*\), and the coding workload's builds, tests and server \(12 resumed states, at iteration 3-25, p50 25\) across 20 kill\/resume cycles;/,
    );
    expect(verdictScope({ cycles, work: work(0, 0) })).toContain(
      "and not the coding workload's builds and tests: none of the 12 resumed states had finished an iteration across",
    );
    expect(verdictScope({ cycles })).not.toContain('coding');
    // states whose last failure was the guest's own disk full: said, and not called failures
    expect(verdictScope({ cycles, work: { ...work(3, 25), outOfSpace: 2 } })).toContain(
      "(12 resumed states, at iteration 3-25, p50 25; in 2 of them a step had last failed with the guest's own disk full, not counted against the system",
    );
  });

  it('writes each class not kept as a measured fact, promised or not', () => {
    const lines = guestStateLimits(g(['tmp-file'], 20));
    expect(lines.find((l) => l.startsWith('tmp-file'))).toMatch(/lost in 20\/20 resumes; .*; promised: gate 10 fails/);
    expect(lines.find((l) => l.startsWith('pipe'))).toMatch(
      /lost in 20\/20 resumes; .*not promised: a measured limit, not a failure/,
    );
    expect(lines.some((l) => l.startsWith('env'))).toBe(false);
    expect(lines).toContain('1 resume left unexamined (not counted): the session ended before the probe examined it.');
    expect(guestStateLimits(undefined)[0]).toMatch(/not probed in this run/);
  });

  it('draws the matrix of the examined resumes, one row per class, the promised ones marked', () => {
    const m = guestStateMatrix(g(['tmp-file'], 20));
    expect(m.rows).toHaveLength(STATE_CLASS_IDS.length - LATER_CLOCKS.length);
    expect(m.rows.find((r) => r[0] === 'tmp-file')).toEqual(['tmp-file', '0/20', '20', '0', '0', 'n/a', 'yes']);
    expect(m.rows.find((r) => r[0] === 'env')?.[1]).toBe('20/20');
    expect(guestStateMatrix(g(['tmp-file'], 0)).rows).toEqual([]);
    expect(guestStateMatrix(undefined).rows).toEqual([]);
  });
});
