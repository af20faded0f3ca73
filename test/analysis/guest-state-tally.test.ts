// The guest-state tally (issue 33): per class the counts and the Wilson interval of survives over examined resumes,
// unprobed and unexamined resumes counted apart (never as observations), the promised classes from the scenario and
// the adapter merged, gate 10's trials = examined resumes x promised classes; two folds appended equal one fold.
import { describe, expect, it } from 'vitest';
import { GuestStateTally } from '../../harness/analysis/guest-state-tally.js';
import { STATE_CLASS_IDS, unprobed, type Observation } from '../../harness/check/survival.js';
import type { GuestStateEventFields } from '../../harness/journal/guest-state-event.js';

const obs = (lostTmp: boolean): Observation[] =>
  STATE_CLASS_IDS.map((c) =>
    c === 'tmp-file' && lostTmp
      ? { class: c, status: 'lost', detail: '/tmp/p: No such file or directory' }
      : { class: c, status: 'survives', detail: 'ok' },
  );
const events: GuestStateEventFields[] = [
  { cycle: 1, mode: 'restarted', observations: obs(true) },
  { cycle: 2, mode: 'restarted', observations: obs(false) },
  { cycle: 3, mode: 'unexamined', observations: [], problem: 'the session ended before the probe examined it' },
  { cycle: 4, mode: 'unprobed', observations: unprobed('no capability').observations },
  { cycle: 5, mode: 'restarted', observations: obs(true) },
];

describe('guest-state tally', () => {
  it('counts per class over examined resumes, promised from scenario and adapter, gate trials', () => {
    const t = new GuestStateTally();
    for (const e of events) t.add(e);
    const g = t.summary(['shm-file'], 'tmp-file,shm-file').guestState!;
    expect(g).toMatchObject({ examined: 3, unprobed: 1, unexamined: 1, promised: ['shm-file', 'tmp-file'] });
    expect(g.problems).toEqual(['the session ended before the probe examined it']);
    const tmp = g.classes.find((c) => c.class === 'tmp-file')!;
    expect(tmp).toMatchObject({ survives: 1, lost: 2, changed: 0, notApplicable: 0, n: 3 });
    expect(tmp.example).toContain('No such file');
    expect(tmp.survives95![0]).toBeGreaterThan(0);
    expect(g.promisedKept).toMatchObject({ successes: 4, trials: 6 });
  });

  it('says nothing of a run that neither probed nor promised; a promise alone is shown with n = 0', () => {
    expect(new GuestStateTally().summary(undefined, undefined)).toEqual({});
    const g = new GuestStateTally().summary(['tmp-file'], undefined).guestState!;
    expect(g.promisedKept).toEqual({ successes: 0, trials: 0, wilson95: null });
  });

  it('two folds appended equal one fold', () => {
    const whole = new GuestStateTally();
    for (const e of events) whole.add(e);
    const a = new GuestStateTally();
    const b = new GuestStateTally();
    events.slice(0, 2).forEach((e) => a.add(e));
    events.slice(2).forEach((e) => b.add(e));
    const joined = new GuestStateTally();
    joined.append(a.partial());
    joined.append(b.partial());
    expect(joined.summary(['tmp-file'], undefined)).toEqual(whole.summary(['tmp-file'], undefined));
  });
});
