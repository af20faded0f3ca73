// The run's effects as summary.json and the report read them (issue 34): effects events summed per discipline, read
// the same through a partial fold handed between threads, with Wilson intervals over the logical effects; the
// "External effects" section shows them and one sentence of advice from the numbers, or says nothing was measured.
import { describe, expect, it } from 'vitest';
import { EffectsTally } from '../../harness/analysis/effects-tally.js';
import type { EffectCounts, EffectsEventFields } from '../../harness/journal/effects-event.js';
import { effectsMarkdown, effectsSection } from '../../harness/report/text/effects.js';

const c = (first: number, duplicates: number, lost = 0): EffectCounts => ({
  emitted: first + duplicates,
  first,
  reEmitted: duplicates,
  duplicates,
  deduplicated: 0,
  worldAhead: 1,
  lost,
});
const ev = (cycle: number, stepDup: number, dup: number): EffectsEventFields => ({
  cycle,
  restoredThrough: cycle * 10,
  incarnations: 1,
  disciplines: { 'step-key': c(100, stepDup), 'random-key': c(100, dup), 'no-key': c(100, dup) },
});

describe('effects tally', () => {
  it('sums the events, the same through a partial fold, with intervals over the logical effects', () => {
    const whole = new EffectsTally();
    const [a, b] = [new EffectsTally(), new EffectsTally()];
    for (const [i, e] of [ev(1, 0, 4), ev(2, 0, 6), ev(3, 0, 5)].entries()) {
      whole.add(e);
      (i < 2 ? a : b).add(e);
    }
    a.append(b.partial());
    const s = whole.summary().effects!;
    expect(a.summary().effects).toEqual(s);
    expect(s).toMatchObject({ accountings: 3, resumes: 3 });
    expect(s.disciplines['random-key']).toMatchObject({ first: 300, duplicates: 15, lost: 0, worldAhead: 3 });
    expect(s.disciplines['step-key'].duplicates95![0]).toBe(0);
    expect(s.disciplines['step-key'].duplicates95![1]).toBeCloseTo(0.0126, 3); // 0 of 300: < 1.27% at 95%
    expect(new EffectsTally().summary()).toEqual({});
  });

  it('re-emissions per resume as a distribution: each event holds the re-emissions of the resume before it', () => {
    // what the runner journals: resumes 1-4, then the run's end; the boot session (counted at 1) re-emits nothing
    const at = (cycle: number, re: number, resumed = true): EffectsEventFields => {
      const e = ev(cycle, 0, re);
      e.disciplines['random-key'].reEmitted = re;
      e.disciplines['step-key'].reEmitted = re + 1; // its own numbers: disciplines are not mixed up
      return { ...e, restoredThrough: resumed ? cycle * 10 : null };
    };
    const events = [at(1, 0), at(2, 3), at(3, 5), at(4, 0), at(4, 2, false)];
    const whole = new EffectsTally();
    for (const e of events) whole.add(e);
    const s = whole.summary().effects!;
    // samples 3, 5, 0, 2 (the first event's 0 is the boot session's, not a resume's)
    expect(s.disciplines['random-key'].reEmittedPerResume).toMatchObject({ n: 4, p50: 2.5, max: 5 });
    expect(s.disciplines['random-key'].reEmittedPerResume!.p95).toBeCloseTo(4.7, 9);
    expect(s.disciplines['step-key'].reEmittedPerResume).toMatchObject({ n: 4, p50: 3.5, max: 6 });
    // the same when the journal is cut between threads anywhere, a cut right after a resume included
    for (let cut = 0; cut <= events.length; cut++) {
      const [a, b] = [new EffectsTally(), new EffectsTally()];
      events.forEach((e, i) => (i < cut ? a : b).add(e));
      a.append(b.partial());
      expect(a.summary().effects, `cut at ${cut}`).toEqual(s);
    }
    // a second run's first event follows no resume of the first run
    const two = new EffectsTally();
    two.add(at(1, 0));
    two.nextRun();
    two.add(at(1, 9, false));
    expect(two.summary().effects!.disciplines['no-key'].reEmittedPerResume).toBeNull();
  });

  it("clones: summed apart, neither a resume nor a resume's re-emissions; their rows in the report", () => {
    const clone = (cycle: number): EffectsEventFields => ({ ...ev(cycle, 0, 6), clone: true });
    const t = new EffectsTally();
    const [a, b] = [new EffectsTally(), new EffectsTally()];
    const events = [ev(1, 0, 1), clone(1), ev(2, 0, 2), clone(2), { ...ev(2, 0, 3), restoredThrough: null }];
    events.forEach((e, i) => {
      t.add(e);
      (i < 2 ? a : b).add(e);
    });
    a.append(b.partial());
    const s = t.summary().effects!;
    expect(a.summary().effects).toEqual(s);
    expect(s).toMatchObject({ accountings: 3, resumes: 2 });
    expect(s.disciplines['random-key']).toMatchObject({ first: 300, duplicates: 6 }); // 1 + 2 + 3: no clone's
    expect(s.disciplines['random-key'].reEmittedPerResume).toMatchObject({ n: 2, p50: 2.5, max: 3 });
    expect(s.clones).toMatchObject({ n: 2, disciplines: { 'random-key': { first: 200, duplicates: 12 } } });
    const rows = effectsSection(s).rows;
    expect(rows.map((r) => r[0])).toEqual([
      'key from session + step',
      'random key at emit time',
      'no key',
      'clones: key from session + step',
      'clones: random key at emit time',
      'clones: no key',
    ]);
    expect(rows[4]!.slice(1, 3)).toEqual(['200', '12 (3.4%–10.2%)']);
    expect(effectsSection(s).advice).toMatch(
      /Two sessions from one checkpoint \(2 clones\): with step-derived keys 0 duplicates in 200 effects; with random keys 12 in 200/,
    );
  });

  it('the report section: the numbers, the advice they back, or "not measured"', () => {
    const t = new EffectsTally();
    t.add(ev(1, 0, 7));
    const s = effectsSection(t.summary().effects);
    expect(s.rows.map((r) => r.slice(0, 3))).toEqual([
      ['key from session + step', '100', '0 (0%–3.7%)'],
      ['random key at emit time', '100', '7 (3.4%–13.8%)'],
      ['no key', '100', '7 (3.4%–13.8%)'],
    ]);
    expect(s.header.at(-1)).toBe('re-emitted per resume (p50 / p95 / max)');
    expect(s.rows[1]!.at(-1)).toBe('n/a'); // one accounting: no resume's session counted yet
    expect(s.advice).toMatch(
      /^With step-derived keys: 0 duplicates and 0 lost in 100 effects, duplicate rate < 3\.7% at 95%; with random keys: 7 duplicates in 100 effects; without keys: 7 in 100/,
    );
    const bad = new EffectsTally();
    bad.add(ev(1, 2, 7));
    expect(effectsSection(bad.summary().effects).advice).toMatch(
      /^Step-derived keys still gave 2 duplicates and 0 lost/,
    );
    expect(effectsMarkdown(undefined, (x) => x)).toEqual([
      '## External effects',
      '',
      expect.stringMatching(/^Not measured: this run emitted no external effects/),
      '',
    ]);
  });
});
