// The run's external effects (issue 34) as the report and gate 9 read them: the journal's effects events summed per key
// discipline, with each count's Wilson interval over the discipline's logical effects (n = effects first emitted).
import { EFFECT_DISCIPLINES, type EffectCounts, type EffectsEventFields } from '../journal/effects-event.js';
import { quantileSorted } from '../stats/quantile.js';
import { wilson } from '../stats/wilson.js';

type D = (typeof EFFECT_DISCIPLINES)[number];

/** Re-emitted effects per resume as a distribution over the resumes whose session's requests were counted. */
export interface PerResume {
  n: number;
  p50: number;
  p95: number;
  max: number;
}

/** One discipline: its summed counts and, over n = `first`, each failure count's Wilson 95% interval. */
export interface DisciplineSummary extends EffectCounts {
  duplicates95: [number, number] | null;
  worldAhead95: [number, number] | null;
  lost95: [number, number] | null;
  /** Re-emissions per resume (null: no resume's session was counted). */
  reEmittedPerResume: PerResume | null;
}

/** A discipline's counts over the run's clones: the clone's requests, and the applications it caused beyond the first. */
export interface CloneDiscipline {
  emitted: number;
  first: number;
  duplicates: number;
  deduplicated: number;
  duplicates95: [number, number] | null;
}

/** What summary.json says of a run's effects (absent: the run emitted none). */
export interface EffectsSummary {
  /** Effects events journaled: one per judged resume and one at each runner's end. */
  accountings: number;
  /** Accountings that judged a restored state's claim (resumes). */
  resumes: number;
  disciplines: Record<(typeof EFFECT_DISCIPLINES)[number], DisciplineSummary>;
  /** Clones (scenario effects.clones): two sessions from one checkpoint; absent when the run had none. */
  clones?: { n: number; disciplines: Record<D, CloneDiscipline> };
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface EffectsFold {
  accountings: number;
  resumes: number;
  sums: Record<D, EffectCounts>;
  /** Per discipline, how many resumes re-emitted k effects (k -> resumes). */
  perResume: Record<D, Record<number, number>>;
  /** A range's first event's re-emissions: a sample only if the range before ended on a resume. */
  head: Record<D, number> | null;
  /** Clone accountings (effects events with clone: true) and their sums. */
  clones: { n: number; sums: Record<D, EffectCounts> };
  /** Whether the last event seen was a resume (its session is counted by the next event); null: none seen yet. */
  pending: boolean | null;
}

const KEYS = ['emitted', 'first', 'reEmitted', 'duplicates', 'deduplicated', 'worldAhead', 'lost'] as const;

const reEmitted = (e: EffectsEventFields): Record<D, number> =>
  Object.fromEntries(EFFECT_DISCIPLINES.map((d) => [d, e.disciplines[d].reEmitted])) as Record<D, number>;

/**
 * Sums effects events. An event counts the requests of the session before it: when the event before it judged a
 * resume, its re-emissions are that resume's (run/effects-run.ts), one sample of the distribution per discipline.
 */
export class EffectsTally {
  private fold: EffectsFold = {
    accountings: 0,
    resumes: 0,
    sums: zeroSums(),
    perResume: Object.fromEntries(EFFECT_DISCIPLINES.map((d) => [d, {}])) as EffectsFold['perResume'],
    clones: { n: 0, sums: zeroSums() },
    head: null,
    pending: null,
  };

  /** Call before the next run's events: its first event follows no resume. */
  nextRun(): void {
    this.fold.pending = null;
  }

  private sample(k: Record<D, number>): void {
    for (const d of EFFECT_DISCIPLINES) this.fold.perResume[d][k[d]] = (this.fold.perResume[d][k[d]] ?? 0) + 1;
  }

  add(e: EffectsEventFields): void {
    if (e.clone === true) {
      // a clone's accounting: apart from the session's, and no resume's re-emissions
      this.fold.clones.n++;
      for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.clones.sums[d][k] += e.disciplines[d][k];
      return;
    }
    this.fold.accountings++;
    if (e.restoredThrough !== null) this.fold.resumes++;
    if (this.fold.pending === true) this.sample(reEmitted(e));
    if (this.fold.accountings === 1) this.fold.head = reEmitted(e);
    this.fold.pending = e.restoredThrough !== null;
    for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.sums[d][k] += e.disciplines[d][k];
  }

  partial(): EffectsFold {
    return structuredClone(this.fold);
  }

  append(p: EffectsFold | undefined): void {
    if (p === undefined) return;
    if (p.head !== null) {
      if (this.fold.pending === true) this.sample(p.head);
      if (this.fold.accountings === 0) this.fold.head = p.head;
    }
    for (const d of EFFECT_DISCIPLINES)
      for (const [k, n] of Object.entries(p.perResume[d]))
        this.fold.perResume[d][Number(k)] = (this.fold.perResume[d][Number(k)] ?? 0) + n;
    if (p.pending !== null) this.fold.pending = p.pending;
    this.fold.clones.n += p.clones.n;
    for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.clones.sums[d][k] += p.clones.sums[d][k];
    this.fold.accountings += p.accountings;
    this.fold.resumes += p.resumes;
    for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.sums[d][k] += p.sums[d][k];
  }

  /** `{ effects }` for the summary, or nothing when no effects event was journaled. */
  summary(): { effects?: EffectsSummary } {
    if (this.fold.accountings === 0 && this.fold.clones.n === 0) return {};
    const at = (d: (typeof EFFECT_DISCIPLINES)[number]): DisciplineSummary => {
      const c = this.fold.sums[d];
      const of = (x: number): [number, number] | null => wilson(Math.min(x, c.first), c.first);
      const dist = { reEmittedPerResume: perResume(this.fold.perResume[d]) };
      return { ...c, duplicates95: of(c.duplicates), worldAhead95: of(c.worldAhead), lost95: of(c.lost), ...dist };
    };
    const disciplines = Object.fromEntries(EFFECT_DISCIPLINES.map((d) => [d, at(d)])) as EffectsSummary['disciplines'];
    const effects: EffectsSummary = { accountings: this.fold.accountings, resumes: this.fold.resumes, disciplines };
    if (this.fold.clones.n > 0) effects.clones = clonesSummary(this.fold.clones);
    return { effects };
  }
}

function zeroSums(): Record<D, EffectCounts> {
  return Object.fromEntries(
    EFFECT_DISCIPLINES.map((d) => [d, Object.fromEntries(KEYS.map((k) => [k, 0])) as unknown as EffectCounts]),
  ) as Record<D, EffectCounts>;
}

/** The clones' counts per discipline, with the duplicates' Wilson interval over the clones' logical effects. */
function clonesSummary(c: EffectsFold['clones']): NonNullable<EffectsSummary['clones']> {
  const at = (d: D): CloneDiscipline => {
    const { emitted, first, duplicates, deduplicated } = c.sums[d];
    return { emitted, first, duplicates, deduplicated, duplicates95: wilson(Math.min(duplicates, first), first) };
  };
  return {
    n: c.n,
    disciplines: Object.fromEntries(EFFECT_DISCIPLINES.map((d) => [d, at(d)])) as Record<D, CloneDiscipline>,
  };
}

/** p50 / p95 (type 7) / max of a histogram of small counts. */
function perResume(h: Record<number, number>): PerResume | null {
  const sorted = Object.entries(h)
    .map(([k, n]) => [Number(k), n] as const)
    .sort((a, b) => a[0] - b[0])
    .flatMap(([k, n]) => Array<number>(n).fill(k));
  if (sorted.length === 0) return null;
  const q = (p: number): number => quantileSorted(sorted, p);
  return { n: sorted.length, p50: q(0.5), p95: q(0.95), max: sorted[sorted.length - 1]! };
}

/** Gate 9's trials: step-key effects the world applied exactly once (neither twice nor lost), of those first emitted. */
export function exactlyOnceTrials(e: EffectsSummary | undefined): [successes: number, trials: number] {
  const d = e?.disciplines['step-key'];
  return d ? [Math.max(0, d.first - d.duplicates - d.lost), d.first] : [0, 0];
}
