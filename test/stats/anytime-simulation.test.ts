// Proof of error control under peeking: seeded Bernoulli sequences at a true rate exactly on the bar, looked at after
// every trial and stopped at the first "pass". The anytime-valid test passes wrongly at most alpha of the time; the
// fixed-n Wilson interval looked at the same way passes wrongly far more often (the negative control: the problem is
// real). Good rates pass and bad rates fail within the stated numbers of trials.
import { describe, expect, it } from 'vitest';
import { decideRate } from '../../harness/stats/anytime.js';
import { createRng } from '../../harness/stats/random.js';
import { wilson } from '../../harness/stats/wilson.js';

const BAR = 0.95;
const ALPHA = 0.05;
const HORIZON = 1000; // trials per sequence, each one a look
const SEQUENCES = 20_000;

/**
 * For every n <= HORIZON, the fewest successes that pass at n trials (Infinity: none) and the most that fail (-1:
 * none). Both tests are monotone in the successes at fixed n, so a table replaces a test per look.
 */
function boundaries(passes: (s: number, n: number) => boolean, fails: (s: number, n: number) => boolean) {
  const passAt: number[] = [Number.POSITIVE_INFINITY];
  const failAt: number[] = [-1];
  for (let n = 1; n <= HORIZON; n++) {
    let lo = 0;
    let hi = n + 1; // binary search for the first s that passes
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (passes(mid, n)) hi = mid;
      else lo = mid + 1;
    }
    passAt.push(lo <= n ? lo : Number.POSITIVE_INFINITY);
    let flo = -1;
    let fhi = n; // binary search for the last s that fails
    while (flo < fhi) {
      const mid = (flo + fhi + 1) >> 1;
      if (fails(mid, n)) flo = mid;
      else fhi = mid - 1;
    }
    failAt.push(flo);
  }
  return { passAt, failAt };
}

const anytime = boundaries(
  (s, n) => decideRate(s, n - s, BAR, ALPHA) === 'above',
  (s, n) => decideRate(s, n - s, BAR, ALPHA) === 'below',
);
const wilsonPeek = boundaries(
  (s, n) => (wilson(s, n)?.[0] ?? 0) >= BAR,
  (s, n) => (wilson(s, n)?.[1] ?? 1) < BAR,
);

/** Play `count` sequences at true rate p; for each, the first trial at which it passes and fails (null: never). */
function play(p: number, count: number, table: ReturnType<typeof boundaries>, seed: number) {
  const rng = createRng(seed);
  const firstPass: (number | null)[] = [];
  const firstFail: (number | null)[] = [];
  for (let i = 0; i < count; i++) {
    let s = 0;
    let pass: number | null = null;
    let fail: number | null = null;
    for (let n = 1; n <= HORIZON && (pass === null || fail === null); n++) {
      if (rng.next() < p) s++;
      if (pass === null && s >= (table.passAt[n] ?? Infinity)) pass = n;
      if (fail === null && s <= (table.failAt[n] ?? -1)) fail = n;
    }
    firstPass.push(pass);
    firstFail.push(fail);
  }
  return { firstPass, firstFail };
}

function quantile(xs: (number | null)[], q: number): number {
  const sorted = xs.map((x) => x ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.POSITIVE_INFINITY;
}

describe('anytime-valid gates under peeking after every trial', () => {
  it('passes a rate exactly on the bar at most alpha of the time; Wilson peeked at the same looks does not', () => {
    const a = play(BAR, SEQUENCES, anytime, 35);
    const falseAnytime = a.firstPass.filter((n) => n !== null).length;
    const [, hiAnytime] = wilson(falseAnytime, SEQUENCES, 0.99) ?? [0, 1];
    // its own 99% interval lies below alpha (measured: 878 of 20,000, 4.4%; Wilson peeked: 13.1%)
    expect(hiAnytime).toBeLessThanOrEqual(ALPHA);

    const w = play(BAR, SEQUENCES, wilsonPeek, 35);
    const falseWilson = w.firstPass.filter((n) => n !== null).length;
    const [loWilson] = wilson(falseWilson, SEQUENCES, 0.99) ?? [0, 1];
    // the negative control: a fixed-n interval looked at after every trial passes wrongly more than alpha of the time
    expect(loWilson).toBeGreaterThan(ALPHA);
    // and the symmetric false fail (a rate on the bar declared below it) is also at most alpha
    const falseFail = a.firstFail.filter((n) => n !== null).length;
    expect(wilson(falseFail, SEQUENCES, 0.99)?.[1]).toBeLessThanOrEqual(ALPHA);
    console.info(
      `false pass at p = ${BAR}, ${SEQUENCES} sequences x ${HORIZON} looks: anytime ${falseAnytime} (${((100 * falseAnytime) / SEQUENCES).toFixed(2)}%), Wilson peeked ${falseWilson} (${((100 * falseWilson) / SEQUENCES).toFixed(2)}%); anytime false fail ${falseFail}`,
    );
  });

  it('passes a clean system at 65 trials and a 99.9% one within 140 trials (95% of sequences)', () => {
    expect(play(1, 10, anytime, 1).firstPass.every((n) => n === 65)).toBe(true);
    const good = play(0.999, 4000, anytime, 2);
    expect(quantile(good.firstPass, 0.5)).toBe(65);
    expect(quantile(good.firstPass, 0.95)).toBeLessThanOrEqual(140);
    expect(good.firstFail.every((n) => n === null)).toBe(true);
  });

  it('fails a bad system fast: at 50% within 3 trials (median), at 80% within 30 trials (median) and 100 (95% of sequences; measured 24 and 88)', () => {
    expect(quantile(play(0.5, 4000, anytime, 3).firstFail, 0.5)).toBeLessThanOrEqual(3);
    const bad = play(0.8, 4000, anytime, 4);
    expect(quantile(bad.firstFail, 0.5)).toBeLessThanOrEqual(30);
    expect(quantile(bad.firstFail, 0.95)).toBeLessThanOrEqual(100);
    expect(bad.firstPass.filter((n) => n !== null).length).toBe(0);
  });
});
