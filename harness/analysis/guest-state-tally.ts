// The guest state a run's sessions kept across their resumes (issue 33) as summary.json, gate 10 and the report's
// "Durability limits" read it: the journal's guest-state events counted per class, each with the Wilson 95% interval
// of survives, and the promised classes (the scenario's and the adapter's) with how many of their observations survived.
import { MATRIX_ONLY, STATE_CLASS_IDS, type Observation, type StateClass } from '../check/survival.js';
import { promisedClasses } from '../check/promises.js';
import type { GuestStateEventFields } from '../journal/guest-state-event.js';
import { wilson } from '../stats/wilson.js';

/** One class's counts over the examined resumes. */
export interface ClassCounts {
  survives: number;
  lost: number;
  changed: number;
  notApplicable: number;
}

/** One class in the summary: its counts, n (survives + lost + changed) and the Wilson 95% interval of survives/n. */
export interface ClassSummary extends ClassCounts {
  class: StateClass;
  n: number;
  survives95: [number, number] | null;
  /** A measured detail of a resume that did not keep it (the first one journaled), to quote in the report. */
  example?: string;
}

/** What summary.json says of a run's guest state (absent: nothing probed and nothing promised). */
export interface GuestStateSummary {
  /** Guest-state events: resumes examined by the probe, resumes the target could not probe, resumes left unexamined. */
  examined: number;
  unprobed: number;
  unexamined: number;
  /** Up to 3 reasons a resume was left unexamined. */
  problems: string[];
  classes: ClassSummary[];
  /** The classes the runtime promises to keep (scenario field promises, the adapter's describe). */
  promised: StateClass[];
  /** Gate 10's trials: observations of a promised class in examined resumes, and how many survived. */
  promisedKept: { successes: number; trials: number; wilson95: [number, number] | null };
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface GuestStateFold {
  examined: number;
  unprobed: number;
  unexamined: number;
  problems: string[];
  counts: Record<StateClass, ClassCounts>;
  examples: Partial<Record<StateClass, string>>;
}

const KEY = { survives: 'survives', lost: 'lost', changed: 'changed', 'not-applicable': 'notApplicable' } as const;
const zero = (): ClassCounts => ({ survives: 0, lost: 0, changed: 0, notApplicable: 0 });

/** Counts guest-state events. */
export class GuestStateTally {
  private fold: GuestStateFold = {
    examined: 0,
    unprobed: 0,
    unexamined: 0,
    problems: [],
    counts: Object.fromEntries(STATE_CLASS_IDS.map((c) => [c, zero()])) as GuestStateFold['counts'],
    examples: {},
  };

  add(e: GuestStateEventFields): void {
    if (e.mode === 'unexamined') {
      this.fold.unexamined++;
      const p = e.problem ?? 'no reason journaled';
      if (this.fold.problems.length < 3 && !this.fold.problems.includes(p)) this.fold.problems.push(p);
      return;
    }
    if (e.mode === 'unprobed') {
      this.fold.unprobed++;
      return;
    }
    this.fold.examined++;
    for (const o of e.observations) this.observe(o);
  }

  private observe(o: Observation): void {
    this.fold.counts[o.class][KEY[o.status]]++;
    if (o.status !== 'survives' && o.status !== 'not-applicable') this.fold.examples[o.class] ??= o.detail;
  }

  partial(): GuestStateFold {
    return structuredClone(this.fold);
  }

  append(p: GuestStateFold | undefined): void {
    if (p === undefined) return;
    this.fold.examined += p.examined;
    this.fold.unprobed += p.unprobed;
    this.fold.unexamined += p.unexamined;
    for (const x of p.problems)
      if (this.fold.problems.length < 3 && !this.fold.problems.includes(x)) this.fold.problems.push(x);
    for (const c of STATE_CLASS_IDS) {
      for (const k of ['survives', 'lost', 'changed', 'notApplicable'] as const)
        this.fold.counts[c][k] += p.counts[c][k];
      if (p.examples[c] !== undefined) this.fold.examples[c] ??= p.examples[c];
    }
  }

  /** `{ guestState }` for the summary, or nothing when no resume was probed and nothing promised. */
  summary(
    scenarioPromises: readonly unknown[] | undefined,
    adapterPromises: unknown,
  ): { guestState?: GuestStateSummary } {
    const f = this.fold;
    const promised = promisedClasses(scenarioPromises?.map(String), adapterPromises);
    if (f.examined + f.unprobed + f.unexamined === 0 && promised.length === 0) return {};
    // the classes only --matrix measures (later wall-clock readings, clone-entropy, tcp-peer) are not a soak's: a soak's
    // probe says not-applicable for them, which would read as a limit of the runtime (kept only if really measured)
    const taken = (c: StateClass): boolean =>
      !MATRIX_ONLY.includes(c) || f.counts[c].survives + f.counts[c].lost + f.counts[c].changed > 0;
    const classes = STATE_CLASS_IDS.filter(taken).map((c): ClassSummary => {
      const k = f.counts[c];
      const n = k.survives + k.lost + k.changed;
      const example = f.examples[c];
      return { class: c, ...k, n, survives95: wilson(k.survives, n), ...(example !== undefined ? { example } : {}) };
    });
    let successes = 0;
    for (const c of promised) successes += f.counts[c].survives;
    const trials = promised.length * f.examined;
    const promisedKept = { successes, trials, wilson95: wilson(successes, trials) };
    const { examined, unprobed, unexamined, problems } = f;
    return { guestState: { examined, unprobed, unexamined, problems, classes, promised, promisedKept } };
  }
}

/** Gate 10's trials: observations of a promised class that survived, of all observations of promised classes. */
export function promisedKeptTrials(g: GuestStateSummary | undefined): [successes: number, trials: number] {
  return g ? [g.promisedKept.successes, g.promisedKept.trials] : [0, 0];
}

/** Gate 10 applies: the run promised a class (whether or not anything was probed). */
export const promises = (s: { guestState?: GuestStateSummary }): boolean => (s.guestState?.promised.length ?? 0) > 0;
