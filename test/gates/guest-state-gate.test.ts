// Gate 10, documented guest state survives (issue 33): judged on the observations of promised classes when the run
// promised any, left out of runs that promised nothing (whatever they lost), insufficient when classes were promised
// but too few observations were examined (nothing probed: n = 0); one lost or changed promised class fails it at any n.
import { describe, expect, it } from 'vitest';
import type { GuestStateSummary } from '../../harness/analysis/guest-state-tally.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { evaluateGates } from '../../harness/gates/evaluate.js';
import { loadGates } from '../../harness/gates/load.js';
import type { StateClass } from '../../harness/check/survival.js';

const guest = (promised: StateClass[], successes: number, trials: number): GuestStateSummary => ({
  examined: trials,
  unprobed: 0,
  unexamined: 0,
  problems: [],
  classes: [],
  promised,
  promisedKept: { successes, trials, wilson95: null },
});
const gate10 = (s: Partial<Summary>) => evaluateGates(loadGates(), s).find((g) => g.id === 10);

describe('gate 10: documented guest state survives', () => {
  it('is left out of a run that promised nothing, even one that lost classes', () => {
    expect(gate10({})).toBeUndefined();
    expect(gate10({ guestState: guest([], 0, 0) })).toBeUndefined();
  });

  it('passes 20/20, is insufficient below minN or with nothing probed, fails on one loss at any n', () => {
    expect(gate10({ guestState: guest(['tmp-file'], 20, 20) })).toMatchObject({ verdict: 'pass', n: 20 });
    expect(gate10({ guestState: guest(['tmp-file'], 5, 5) })).toMatchObject({ verdict: 'insufficient', n: 5 });
    expect(gate10({ guestState: guest(['tmp-file'], 0, 0) })).toMatchObject({ verdict: 'insufficient', n: 0 });
    expect(gate10({ guestState: guest(['tmp-file'], 4, 5) })).toMatchObject({ verdict: 'fail', n: 5 });
    expect(gate10({ guestState: guest(['tmp-file'], 199, 200) })).toMatchObject({ verdict: 'fail', n: 200 });
  });
});
