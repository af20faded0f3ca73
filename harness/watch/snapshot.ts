// What the `soak watch` page shows, computed from an analysis and its judgement with the report's own functions
// (findings, gate formatting, chart data, verdict line): the page shows the figures the report would.
import type { RunAnalysis } from '../analysis/summary.js';
import type { Judgement } from '../gates/judge.js';
import { verdictLine } from '../gates/judge.js';
import { findings } from '../report/findings.js';
import { ecdfData, histogramData } from '../report/charts/chart-data.js';
import { fmtGateInterval, fmtGateObserved, fmtGateThreshold, fmtGateVerdict } from '../report/text/gate-format.js';
import { fmtAnytimeDecision, fmtAnytimeInterval } from '../report/text/anytime-format.js';

/** One gate as it stands. */
export interface WatchGate {
  id: number;
  title: string;
  threshold: string;
  observed: string;
  interval: string;
  n: number;
  verdict: string;
  /** pass | fail | insufficient | inconclusive (for the badge's colour). */
  state: string;
  /** The anytime-valid decision, valid at every look (report/text/anytime-format.ts), its interval, and its state. */
  anytime: string;
  anytimeInterval: string;
  anytimeState: 'pass' | 'fail' | 'undecided';
}

/** One session's progress in a run of several sessions at once (issue 36). */
export interface WatchSession {
  session: number;
  done: number;
  /** Its planned cycles (each session runs every cycle of the run or shard; null: unknown). */
  planned: number | null;
  failed: number;
  indeterminate: number;
}

/** Everything the watch page shows. */
export interface WatchSnapshot {
  runDir: string;
  runId: string;
  scenario: string;
  target: string;
  /** running (no run-end yet), or how the run ended. */
  status: string;
  /** Every session's cycles together (planned: cycles x sessions). */
  cycles: { done: number; planned: number | null; resumed: number; failed: number; indeterminate: number };
  /** Each session's own progress (empty: a run of one session). */
  sessions: WatchSession[];
  /** Seconds left at the pace so far (null: unknown or finished). */
  etaS: number | null;
  verdictLine: string;
  findings: string[];
  gates: WatchGate[];
  failures: string[];
  histogram: { x0: number; x1: number; count: number }[];
  ecdf: { x: number; p: number }[];
  /** Wall-clock time of the last journal read (ISO). */
  readAt: string;
  /** Set when reading failed (the page keeps the last good figures). */
  error: string | null;
}

/** Pace facts from the journal itself: how many cycles were planned and how long the run has taken so far (ms). */
export interface Pace {
  /** Cycles planned in all (a run of several sessions: each session's x their number). */
  planned: number | null;
  elapsedMs: number | null;
  /** Sessions at once (absent: one). */
  sessions?: number;
}

/** The snapshot of `analysis` judged as `judgement`, with the run's pace. */
export function watchSnapshot(runDir: string, analysis: RunAnalysis, j: Judgement, pace: Pace): WatchSnapshot {
  const s = analysis.summary;
  const done = s.cycles.total;
  const ended = s.runStatus !== undefined && s.runStatus.status !== 'unknown';
  const left = pace.planned === null ? null : Math.max(0, pace.planned - done);
  const etaS =
    ended || left === null || done === 0 || pace.elapsedMs === null ? null : (left * pace.elapsedMs) / done / 1000;
  return {
    runDir,
    runId: s.runId,
    scenario: s.scenario,
    target: s.target,
    status: ended ? s.runStatus!.status : 'running (no run-end yet)',
    cycles: {
      done,
      planned: pace.planned,
      resumed: s.cycles.resumed,
      failed: s.cycles.failed,
      indeterminate: s.cycles.indeterminate,
    },
    sessions: (s.sessions?.rows ?? []).map((r) => ({
      session: r.session,
      done: r.cycles.total,
      planned: pace.planned === null ? null : pace.planned / (pace.sessions ?? 1),
      failed: r.cycles.failed,
      indeterminate: r.cycles.indeterminate,
    })),
    etaS,
    verdictLine: verdictLine(j),
    findings: findings(analysis),
    gates: j.gates.map((g) => ({
      id: g.id,
      title: g.title,
      threshold: fmtGateThreshold(g),
      observed: fmtGateObserved(g),
      interval: fmtGateInterval(g),
      n: g.n,
      verdict: fmtGateVerdict(g),
      state: g.verdict,
      anytime: fmtAnytimeDecision(g),
      anytimeInterval: fmtAnytimeInterval(g),
      anytimeState: g.anytime?.decision ?? 'undecided',
    })),
    failures: s.violationSamples,
    histogram: histogramData(analysis.downtimes),
    ecdf: ecdfData(analysis.downtimes).filter(
      (_, i, all) => all.length <= 200 || i % Math.ceil(all.length / 200) === 0,
    ),
    readAt: new Date().toISOString(),
    error: null,
  };
}
