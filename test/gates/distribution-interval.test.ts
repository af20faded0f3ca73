// The note beside a quantile gate's interval says what the sample can and cannot bound, and never contradicts the
// bound the verdict was judged on (60 boots: no two-sided interval of p95, but a one-sided upper bound).
import { describe, expect, it } from 'vitest';
import { distributionInterval } from '../../harness/gates/distribution-interval.js';

const P95 = { kind: 'quantile', q: 0.95 } as const;
const sample = (n: number): number[] => Array.from({ length: n }, (_, i) => 100 + i);

describe('distributionInterval notes', () => {
  it('60 samples of p95: no two-sided interval, and the note says the one-sided bounds are judged', () => {
    const r = distributionInterval(P95, sample(60), 1);
    expect(r.interval).toBeNull();
    expect(r.ends?.[1]).not.toBeNull(); // the one-sided upper bound exists at n >= 59
    expect(r.note).toBe(
      'no two-sided 95% interval of p95 from 60 samples (it needs n >= 72); the one-sided 95% bounds are judged',
    );
  });

  it('20 samples of p95 cannot bound it above at all, and the note says so', () => {
    const r = distributionInterval(P95, sample(20), 1);
    expect(r.ends?.[1]).toBeNull();
    expect(r.note).toMatch(/^20 samples cannot bound p95 above at 95%/);
  });

  it('100 samples: a two-sided interval and no note', () => {
    const r = distributionInterval(P95, sample(100), 1);
    expect(r.interval).not.toBeNull();
    expect(r.note).toBe('');
  });
});
