// Threshold expressions: accepted spellings, rejected ones, and the comparison.
import { describe, expect, it } from 'vitest';
import { holds, parseThreshold } from '../../harness/gates/threshold.js';

describe('parseThreshold', () => {
  it.each([
    ['p95 < 2000', { stat: 'p95', op: '<', bound: 2000 }],
    ['wilson95.lo >= 0.95', { stat: 'wilson95.lo', op: '>=', bound: 0.95 }],
    ['count == 0', { stat: 'count', op: '==', bound: 0 }],
    ['ratio>=5', { stat: 'ratio', op: '>=', bound: 5 }],
    ['p(99) <= 1.5e3', { stat: 'p99', op: '<=', bound: 1500 }],
    ['  mean > -2.5 ', { stat: 'mean', op: '>', bound: -2.5 }],
  ])('parses %s', (source, expected) => {
    expect(parseThreshold(source)).toMatchObject(expected);
  });
  it.each(['p95 <', '< 5', 'p95 = 5', 'p95 < five', 'p95 < 5 ms', 'p95 < 5 && count == 0', ''])(
    'rejects %j with a message',
    (source) => {
      expect(parseThreshold(source)).toMatch(/^cannot parse/);
    },
  );
});

describe('holds', () => {
  it('applies each operator, including the boundary', () => {
    expect([holds(5, '<', 5), holds(5, '<=', 5), holds(5, '>', 5), holds(5, '>=', 5), holds(5, '==', 5)]).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
  });
});
