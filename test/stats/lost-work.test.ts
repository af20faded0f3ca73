// Lost work: cycles over a limit, hand-counted; unmeasured cycles (null) never count.
import { describe, expect, it } from 'vitest';
import { countLostBeyond } from '../../harness/stats/lost-work.js';

describe('lost work', () => {
  it('counts measured cycles over a limit', () => {
    const lost = [3, null, 19, 40, 0];
    expect(countLostBeyond(lost, 19)).toBe(1);
    expect(countLostBeyond(lost, 2)).toBe(3);
    expect(countLostBeyond([null, null], -1)).toBe(0);
  });
});
