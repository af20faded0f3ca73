// Threshold expressions: accepted spellings parse once into a typed statistic, rejected ones get a message, the
// statistic's name prints back as parsed, and the comparison.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { holds, parseStatistic, parseThreshold, statName } from '../../harness/gates/threshold.js';
import { repoRoot } from '../helpers/paths.js';
import { regexLiterals, tsFiles } from '../helpers/source-scan.js';

describe('parseThreshold', () => {
  it.each([
    ['p95 < 2000', { stat: { kind: 'quantile', q: 0.95 }, op: '<', bound: 2000 }],
    ['wilson95.lo >= 0.95', { stat: { kind: 'wilson', level: 95, side: 'lo' }, op: '>=', bound: 0.95 }],
    ['Wilson99.HI < 0.1', { stat: { kind: 'wilson', level: 99, side: 'hi' }, op: '<', bound: 0.1 }],
    ['count == 0', { stat: { kind: 'count' }, op: '==', bound: 0 }],
    ['ratio>=5', { stat: { kind: 'ratio' }, op: '>=', bound: 5 }],
    ['p(99) <= 1.5e3', { stat: { kind: 'quantile', q: 0.99 }, op: '<=', bound: 1500 }],
    ['P(99.9) < 4', { stat: { kind: 'quantile', q: 0.999 }, op: '<', bound: 4 }],
    ['  mean > -2.5 ', { stat: { kind: 'mean' }, op: '>', bound: -2.5 }],
    ['failures <= 2', { stat: { kind: 'failures' }, op: '<=', bound: 2 }],
  ])('parses %s', (source, expected) => {
    expect(parseThreshold(source)).toEqual({ source: source.trim(), ...expected });
  });
  it.each(['p95 <', '< 5', 'p95 = 5', 'p95 < five', 'p95 < 5 ms', 'p95 < 5 && count == 0', ''])(
    'rejects %j with a message',
    (source) => {
      expect(parseThreshold(source)).toMatch(/^cannot parse/);
    },
  );
  it.each([
    'median < 5',
    'p0 < 5',
    'p100 < 5',
    'wilson5.lo >= 0.9',
    'wilson95.mid >= 0.9',
    'p95.lo < 5',
    'wilson95 > 1',
  ])('rejects the unknown statistic in %j, naming it and the statistics there are', (source) => {
    const stat = source.split(' ')[0]!;
    expect(parseThreshold(source)).toBe(
      `cannot parse "${source}": "${stat}" is not a statistic; use pNN (0 < NN < 100, e.g. p95 or p(95)), min, max, mean, wilsonNN.lo, wilsonNN.hi (NN = confidence % from 10 to 99), failures, successes, count or ratio`,
    );
  });
});

describe('statName', () => {
  it.each([
    'p50',
    'p90',
    'p95',
    'p99',
    'p99.9',
    'p1',
    'min',
    'max',
    'mean',
    'wilson95.lo',
    'wilson90.hi',
    'wilson10.lo',
    'failures',
    'successes',
    'count',
    'ratio',
  ])('prints %s back as the name it was parsed from', (name) => {
    const stat = parseStatistic(name);
    expect(stat).not.toBeNull();
    expect(statName(stat!)).toBe(name);
  });
  it('normalises the k6 spelling and the case', () => {
    expect(statName(parseStatistic('P(95)')!)).toBe('p95');
    expect(statName(parseStatistic('WILSON95.Lo')!)).toBe('wilson95.lo');
  });
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

describe('one parser of a statistic', () => {
  it('no harness file but gates/threshold.ts holds a regular expression over a statistic name or a threshold', () => {
    const harness = path.join(repoRoot, 'harness');
    // a statistic's name (wilson95.lo, p95, p(95)) or the threshold's operators (>= | >)
    const statGrammar = /wilson|\^p(?:\\\(|\(|\\d|\[)|\bp\\\(|[<>]=\|/i;
    const offenders = tsFiles(harness)
      .filter((rel) => rel !== 'gates/threshold.ts')
      .flatMap((rel) =>
        regexLiterals(path.join(harness, rel))
          .filter((r) => statGrammar.test(r.text))
          .map((r) => `${rel}:${r.line}: ${r.text}`),
      );
    expect(offenders).toEqual([]);
  });
});
