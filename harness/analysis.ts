// Analysis: pure functions from journal events to the run's numbers. Never talks to a target.
import type { BootEvent, CheckpointEvent, CycleEvent, JournalEvent, RestoreEvent, RunStartEvent } from './events.js';
import { InputError } from './errors.js';
import { summarize } from './stats/distribution.js';
import { mean } from './stats/distribution.js';
import { wilson } from './stats/wilson.js';
import { SUMMARY_SCHEMA_VERSION, type CheckpointRow, type CycleRow, type RunAnalysis } from './summary-types.js';

/** The last outcome per cycle id (a cycle is never counted twice), plus ids that started but never finished. */
function cycleOutcomes(events: JournalEvent[]): { done: CycleEvent[]; unfinished: number[] } {
  const byId = new Map<number, CycleEvent>();
  const started = new Set<number>();
  for (const e of events) {
    if (e.type === 'cycle-start') started.add(e.cycle);
    if (e.type === 'cycle') byId.set(e.cycle, e);
  }
  const done = [...byId.values()].sort((a, b) => a.cycle - b.cycle);
  const unfinished = [...started].filter((c) => !byId.has(c)).sort((a, b) => a - b);
  return { done, unfinished };
}

function toRow(e: CycleEvent): CycleRow {
  const { schemaVersion: _v, t: _t, type: _type, violations, ...rest } = e;
  return { ...rest, violations: violations.map((v) => v.code).join(' ') };
}

/**
 * Analyse one run's events, or several runs (shards, nights) as one sample: cycles are keyed per run, so
 * merged statistics equal those of a single run over the union. Scenario, date and environment come from the first run.
 */
export function analyze(firstEvents: JournalEvent[], source = 'journal', more: { events: JournalEvent[]; source: string }[] = []): RunAnalysis {
  const runs = [{ events: firstEvents, source }, ...more];
  const starts = runs.map(({ events: evs, source: src }) => {
    const s = evs.find((e): e is RunStartEvent => e.type === 'run-start');
    if (!s) throw new InputError(`${src} has no run-start event (is it a journal written by "soak run"?)`);
    return s;
  });
  const start = starts[0]!;
  const perRun = runs.map((r) => cycleOutcomes(r.events));
  const done = perRun.flatMap((r) => r.done);
  const unfinished = perRun.flatMap((r) => r.unfinished);
  const events = runs.flatMap((r) => r.events);
  const ok = done.filter((c) => c.outcome === 'ok');
  const failed = done.filter((c) => c.outcome === 'fail');
  const downtimes = ok.map((c) => c.downtimeMs).filter((x): x is number => x !== null);

  const ckpts = events.filter((e): e is CheckpointEvent => e.type === 'checkpoint');
  let cumLogical = 0;
  let cumStored = 0;
  const checkpoints: CheckpointRow[] = ckpts.map((c) => {
    cumLogical += c.logicalBytes;
    cumStored += c.storedBytes;
    return { seq: c.seq, cycle: c.cycle, step: c.step, pauseMs: c.pauseMs, writeMs: c.writeMs, logicalBytes: c.logicalBytes, storedBytes: c.storedBytes, cumLogicalBytes: cumLogical, cumStoredBytes: cumStored };
  });

  const lost = ok.map((c) => c.lostSteps).filter((x): x is number => x !== null);
  const torn = done.filter((c) => c.observedPhase === 'checkpoint');
  const resumedAtAll = done.filter((c) => c.downtimeMs !== null);
  const violations = done.flatMap((c) => c.violations);
  const trials = done.length;

  return {
    summary: {
      schemaVersion: SUMMARY_SCHEMA_VERSION,
      runId: start.runId,
      scenario: start.scenario.name,
      target: start.scenario.target,
      date: start.startedAt.slice(0, 10),
      startedAt: start.startedAt,
      seed: start.scenario.seed,
      cycles: { total: trials + unfinished.length, resumed: ok.length, failed: failed.length, indeterminate: unfinished.length },
      killResume: { successes: ok.length, trials, wilson95: wilson(ok.length, trials) },
      downtimeMs: summarize(downtimes),
      bootMs: summarize(events.filter((e): e is BootEvent => e.type === 'boot').map((e) => e.bootMs)),
      checkpointPauseMs: summarize(ckpts.map((c) => c.pauseMs)),
      checkpointWriteMs: summarize(ckpts.map((c) => c.writeMs)),
      restoreMs: summarize(events.filter((e): e is RestoreEvent => e.type === 'restore').map((e) => e.restoreMs)),
      lostSteps: { n: lost.length, max: lost.reduce<number | null>((m, x) => (m === null || x > m ? x : m), null), mean: mean(lost) },
      tornCheckpoint: { trials: torn.length, previousRestored: torn.filter((c) => c.outcome === 'ok').length },
      noncePreserved: { trials: resumedAtAll.length, preserved: resumedAtAll.filter((c) => !c.violations.some((v) => v.code === 'nonce')).length },
      dedup: { checkpoints: ckpts.length, logicalBytes: cumLogical, storedBytes: cumStored, ratio: cumStored > 0 ? cumLogical / cumStored : null },
      violations: violations.length,
      violationSamples: violations.slice(0, 10).map((v) => v.message),
      negativeControl: start.scenario.negativeControl,
      environment: start.environment,
    },
    cycles: done.map(toRow),
    checkpoints,
    downtimes,
    cadence: { stepMs: start.scenario.stepMs, checkpoint: { everyMs: start.scenario.checkpoint.everyMs } },
  };
}
