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
} from '../../harness/check/survival.js';
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
