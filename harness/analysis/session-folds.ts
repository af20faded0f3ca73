// Per-session analysis of a run with several sessions at once (scenario sessions, issue 36): each session's events,
// with the run's run-start and run-end, are folded on their own as if the session had been a run of its own, so a
// session's failures, rates and dedup are seen beside the pooled ones, and a gate is judged in each session too.
import type { JournalEvent, RunEndEvent, RunStartEvent } from '../journal/events.js';
import type { Scenario } from '../scenario/scenario.js';
import { sessionSeed } from '../scenario/sessions.js';
import { mean } from '../stats/distribution.js';
import type { RunAnalysis, SessionsSummary, Summary } from './summary.js';

/** What folds one session's events (a RunAccumulator: passed in, so this file does not import it). */
export interface SessionFold {
  add(e: JournalEvent): void;
  finish(source: string): RunAnalysis;
}

/** Folds each session's events apart once a run-start asked for sessions > 1; idle for a one-session run. */
export class SessionFolds {
  private readonly folds: SessionFold[] = [];
  private start: RunStartEvent | null = null;

  constructor(private readonly make: () => SessionFold) {}

  /** True once the run's run-start asked for several sessions. */
  get active(): boolean {
    return this.start !== null;
  }

  add(e: JournalEvent): void {
    if (e.type === 'run-start') {
      if (this.start !== null || ((e.scenario as Partial<Scenario>).sessions ?? 1) <= 1) return; // older: none
      this.start = e;
      for (let s = 0; s < e.scenario.sessions; s++) {
        const fold = this.make();
        const scenario = { ...e.scenario, seed: sessionSeed(e.scenario.seed, s), sessions: 1 };
        // a merged run's sources carry their runs' store tallies (every session's): a session's dedup is its own
        const sources = e.sources?.map(({ store: _store, ...source }) => source);
        fold.add({ ...e, scenario, ...(sources ? { sources } : {}) });
        this.folds.push(fold);
      }
      return;
    }
    if (this.start === null) return;
    if (e.type === 'run-end') {
      const { store: _store, ...end } = e; // the run's tally (every session's): a session's dedup is its checkpoints'
      for (const f of this.folds) f.add(end);
    } else if (e.type === 'run-resume' || e.type === 'machine-load') for (const f of this.folds) f.add(e);
    else this.folds[e.session ?? 0]?.add(e);
  }

  /** Each session's analysis (empty for a one-session run). */
  finish(source: string): RunAnalysis[] {
    return this.folds.map((f, s) => f.finish(`${source} (session ${s})`));
  }
}

/**
 * The per-session table of summary.json from each session's analysis, with the dedup over the one shared store
 * (`pooled`: the run's dedup) beside what the sessions would have kept apart (the run-end's apartBytes) and their mean.
 */
export function sessionsSummary(
  each: readonly RunAnalysis[],
  pooled: Pick<Summary['dedup'], 'logicalBytes' | 'storedBytes' | 'ratio'>,
  ends: readonly (RunEndEvent | null)[],
): SessionsSummary {
  const rows = each.map((a, session) => {
    const s = a.summary;
    return {
      session,
      seed: s.seed,
      cycles: s.cycles,
      killResume: s.killResume,
      violations: s.violations,
      violationSamples: s.violationSamples,
      dedup: { logicalBytes: s.dedup.logicalBytes, storedBytes: s.dedup.storedBytes, ratio: s.dedup.ratio },
    };
  });
  const ratios = rows.map((r) => r.dedup.ratio).filter((r): r is number => r !== null);
  const apart = ends.length === 1 ? (ends[0]?.store?.apartBytes ?? null) : null; // one run's (sessions runs alone)
  return {
    count: rows.length,
    rows,
    dedup: {
      pooledRatio: pooled.ratio,
      apartBytes: apart,
      apartRatio: apart !== null && apart > 0 ? pooled.logicalBytes / apart : null,
      sharedSaving: apart !== null && pooled.storedBytes > 0 ? apart / pooled.storedBytes : null,
      meanSessionRatio: mean(ratios),
    },
  };
}
