// The coding workload's tally (analysis/work-tally.ts): observations with its account counted, their iterations as
// min/p50/max, the states whose failures grew past the killed host's start; folds of two parts add up to the whole.
import { describe, expect, it } from 'vitest';
import { WorkTally } from '../../harness/analysis/work-tally.js';

const obs = (iteration: number, failures = 0, workBefore?: number) => ({
  work: { iteration, failures, served: iteration, last: failures > 0 ? 'test' : '-' },
  ...(workBefore !== undefined ? { workBefore } : {}),
});

describe('WorkTally', () => {
  it('is absent from the summary when no resumed state carried the account', () => {
    const t = new WorkTally();
    t.add({});
    expect(t.summary()).toEqual({});
  });

  it('counts the states, their iterations, and a failure only where the count grew', () => {
    const t = new WorkTally();
    for (const o of [obs(4), obs(9, 1, 0), obs(12, 1, 1), obs(20, 3, 1), obs(0)]) t.add(o);
    expect(t.summary()).toEqual({ work: { resumes: 5, iterations: { min: 0, p50: 9, max: 20 }, failed: 2 } });
  });

  it("counts a state whose last failure is the guest's disk full apart: not a failure, said as outOfSpace", () => {
    const t = new WorkTally();
    const space = { work: { iteration: 6, failures: 0, served: 6, last: 'space' }, workBefore: 0 };
    for (const o of [obs(4), space, obs(9, 1, 0)]) t.add(o);
    expect(t.summary()).toEqual({
      work: { resumes: 3, iterations: { min: 4, p50: 6, max: 9 }, failed: 1, outOfSpace: 1 },
    });
  });

  it('two folds appended give what one tally of all of them gives', () => {
    const all = new WorkTally();
    const [a, b] = [new WorkTally(), new WorkTally()];
    for (const [t, o] of [
      [a, obs(1)],
      [a, obs(7, 1)],
      [b, obs(3)],
      [b, obs(5, 1, 1)],
      [b, { work: { iteration: 8, failures: 0, served: 8, last: 'space' } }],
    ] as const) {
      t.add(o);
      all.add(o);
    }
    const merged = new WorkTally();
    merged.append(a.partial());
    merged.append(b.partial());
    merged.append(undefined);
    expect(merged.summary()).toEqual(all.summary());
  });
});
