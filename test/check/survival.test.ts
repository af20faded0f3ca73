// The vocabulary of what survives a resume: a probe line is read field by field (a malformed one is named, never
// passed on), and the matrix counts each status per class with the Wilson interval of survives over applicable resumes.
import { describe, expect, it } from 'vitest';
import { tallyMatrix } from '../../harness/check/survival-matrix.js';
import {
  type Observation,
  parseProbeLine,
  type ProbeReport,
  STATE_CLASS_IDS,
  unprobed,
  withLaterClocks,
} from '../../harness/check/survival.js';
import { parsePromises } from '../../harness/check/promises.js';
import { wilson } from '../../harness/stats/wilson.js';

const all = (status: Observation['status']): Observation[] =>
  STATE_CLASS_IDS.map((c) => ({ class: c, status, detail: `${c} ${status}` }));

describe('parseProbeLine', () => {
  it('reads ready, examined and error lines', () => {
    expect(parseProbeLine({ probe: 1, event: 'ready', holder: 7, token: 'ab' })).toEqual({
      event: 'ready',
      holder: 7,
      token: 'ab',
    });
    const examined = { probe: 1, event: 'examined', mode: 'holder', holder: 7, token: 'ab', observations: all('lost') };
    expect(parseProbeLine(examined)).toMatchObject({ event: 'examined', mode: 'holder' });
    expect(parseProbeLine({ probe: 1, event: 'error', message: 'x' })).toEqual({ event: 'error', message: 'x' });
  });

  it('names what is wrong: an unknown class or status, a missing class, a foreign line', () => {
    const base = { probe: 1, event: 'examined', mode: 'restarted', holder: 7, token: 'ab' };
    const bad = all('survives').map((o, i) => (i === 2 ? { ...o, status: 'kept' } : o));
    expect(parseProbeLine({ ...base, observations: bad })).toBe(
      'examined: observations[2] is not a known class with a status and a detail',
    );
    expect(parseProbeLine({ ...base, observations: all('survives').slice(1) })).toBe(
      'examined: no observation of workspace-unsynced',
    );
    expect(parseProbeLine({ ...base, mode: 'frozen', observations: [] })).toMatch(/^examined: mode "frozen"/);
    expect(parseProbeLine({ event: 'ready' })).toMatch(/not a probe line/);
  });
});

describe('the later wall-clock readings (clock-wall-1s, -5s, -30s)', () => {
  const later = ['clock-wall-1s', 'clock-wall-5s', 'clock-wall-30s'];
  const clock = (after: unknown, cls: string, extra: object[] = []) => ({
    probe: 1,
    event: 'clock',
    holder: 7,
    token: 'ab',
    after,
    observations: [{ class: cls, status: 'changed', detail: '-3.000 s', value: -3 }, ...extra],
  });

  it('an examination need not hold them; a clock line holds exactly its own one', () => {
    const base = { probe: 1, event: 'examined', mode: 'holder', holder: 7, token: 'ab' };
    const without = all('survives').filter((o) => !later.includes(o.class));
    expect(parseProbeLine({ ...base, observations: without })).toMatchObject({ event: 'examined' });
    expect(parseProbeLine(clock(5, 'clock-wall-5s'))).toMatchObject({ event: 'clock', after: 5 });
    expect(parseProbeLine(clock(5, 'clock-wall-1s'))).toMatch(/^clock: not one observation/);
    expect(parseProbeLine(clock(2, 'clock-wall-2s'))).toMatch(/^clock: not one observation/);
    expect(parseProbeLine(clock(1, 'clock-wall-1s', [{ class: 'env', status: 'lost', detail: '' }]))).toMatch(
      /^clock: not one observation/,
    );
  });

  it('withLaterClocks adds each one a report lacks as not-applicable with the reason, and keeps the ones it has', () => {
    const r = withLaterClocks(
      { mode: 'holder', observations: [{ class: 'clock-wall-1s', status: 'survives', detail: '+0.01 s' }] },
      'not read',
    );
    expect(r.observations.map((o) => `${o.class} ${o.status}`)).toEqual([
      'clock-wall-1s survives',
      'clock-wall-5s not-applicable',
      'clock-wall-30s not-applicable',
    ]);
  });

  it('a soak cannot promise them (it reads the wall clock once): one line naming the element', () => {
    expect(parsePromises(['tmp-file', 'clock-wall-5s'])).toMatch(
      /^promises\[1\]: "clock-wall-5s" is read only by `soak target check --matrix --clock-after`/,
    );
    expect(parsePromises(['clock-wall'])).toEqual(['clock-wall']);
  });
});

describe('tallyMatrix', () => {
  it('counts per class; the interval is over the resumes where the class applied', () => {
    const reports: ProbeReport[] = [
      { mode: 'holder', observations: all('survives') },
      { mode: 'holder', observations: all('survives') },
      { mode: 'restarted', observations: all('lost') },
      unprobed('no probe here'),
    ];
    const row = tallyMatrix(reports).find((r) => r.class === 'tmp-file')!;
    expect(row).toMatchObject({ survives: 2, lost: 1, changed: 0, notApplicable: 1, n: 3 });
    expect(row.interval).toEqual(wilson(2, 3));
    expect(row.examples).toEqual(['lost: tmp-file lost', 'not-applicable: no probe here']);
    const none = tallyMatrix([unprobed('why')]).find((r) => r.class === 'timer')!;
    expect(none).toMatchObject({ n: 0, interval: null, examples: ['not-applicable: why'] });
  });
});
