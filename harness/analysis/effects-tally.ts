// The run's external effects (issue 34) as the report and gate 9 read them: the journal's effects events summed per key
// discipline, with each count's Wilson interval over the discipline's logical effects (n = effects first emitted).
import { EFFECT_DISCIPLINES, type EffectCounts, type EffectsEventFields } from '../journal/effects-event.js';
import { wilson } from '../stats/wilson.js';

/** One discipline: its summed counts and, over n = `first`, each failure count's Wilson 95% interval. */
export interface DisciplineSummary extends EffectCounts {
  duplicates95: [number, number] | null;
  worldAhead95: [number, number] | null;
  lost95: [number, number] | null;
}

/** What summary.json says of a run's effects (absent: the run emitted none). */
export interface EffectsSummary {
  /** Effects events journaled: one per judged resume and one at each runner's end. */
  accountings: number;
  /** Accountings that judged a restored state's claim (resumes). */
  resumes: number;
  disciplines: Record<(typeof EFFECT_DISCIPLINES)[number], DisciplineSummary>;
}

/** The plain fold a thread hands on (analysis/parallel.ts). */
export interface EffectsFold {
  accountings: number;
  resumes: number;
  sums: Record<(typeof EFFECT_DISCIPLINES)[number], EffectCounts>;
}

const KEYS = ['emitted', 'first', 'reEmitted', 'duplicates', 'deduplicated', 'worldAhead', 'lost'] as const;

/** Sums effects events. */
export class EffectsTally {
  private fold: EffectsFold = {
    accountings: 0,
    resumes: 0,
    sums: Object.fromEntries(
      EFFECT_DISCIPLINES.map((d) => [d, Object.fromEntries(KEYS.map((k) => [k, 0])) as unknown as EffectCounts]),
    ) as EffectsFold['sums'],
  };

  add(e: EffectsEventFields): void {
    this.fold.accountings++;
    if (e.restoredThrough !== null) this.fold.resumes++;
    for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.sums[d][k] += e.disciplines[d][k];
  }

  partial(): EffectsFold {
    return structuredClone(this.fold);
  }

  append(p: EffectsFold | undefined): void {
    if (p === undefined) return;
    this.fold.accountings += p.accountings;
    this.fold.resumes += p.resumes;
    for (const d of EFFECT_DISCIPLINES) for (const k of KEYS) this.fold.sums[d][k] += p.sums[d][k];
  }

  /** `{ effects }` for the summary, or nothing when no effects event was journaled. */
  summary(): { effects?: EffectsSummary } {
    if (this.fold.accountings === 0) return {};
    const at = (d: (typeof EFFECT_DISCIPLINES)[number]): DisciplineSummary => {
      const c = this.fold.sums[d];
      const of = (x: number): [number, number] | null => wilson(Math.min(x, c.first), c.first);
      return { ...c, duplicates95: of(c.duplicates), worldAhead95: of(c.worldAhead), lost95: of(c.lost) };
    };
    const disciplines = Object.fromEntries(EFFECT_DISCIPLINES.map((d) => [d, at(d)])) as EffectsSummary['disciplines'];
    return { effects: { accountings: this.fold.accountings, resumes: this.fold.resumes, disciplines } };
  }
}

/** Gate 9's trials: step-key effects the world applied exactly once (neither twice nor lost), of those first emitted. */
export function exactlyOnceTrials(e: EffectsSummary | undefined): [successes: number, trials: number] {
  const d = e?.disciplines['step-key'];
  return d ? [Math.max(0, d.first - d.duplicates - d.lost), d.first] : [0, 0];
}
