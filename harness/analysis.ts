// Analysis: pure folds of journal events into the run's numbers. Never talks to a target. Events are folded one at a
// time and not kept, so a journal of any length is analysed streaming, in memory proportional to its cycles.
import type { JournalEvent, RunStartEvent, Violation } from './events.js';
import { InputError } from './errors.js';
import { mean, summarize } from './stats/distribution.js';
import { wilson } from './stats/wilson.js';
import { SUMMARY_SCHEMA_VERSION, type CheckpointRow, type CycleRow, type RunAnalysis } from './summary-types.js';

const NO_VIOLATIONS: Violation[] = [];

interface Outcome {
  row: CycleRow;
  violations: Violation[];
}

/** Folds the events of one or more runs (shards, nights) into one sample; cycles are keyed per run. */
export class RunAccumulator {
  private start: RunStartEvent | null = null;
  private run = 0;
  private sawStart = false;
  private readonly outcomes = new Map<number, Outcome>();
  private readonly started = new Set<number>();
  private readonly checkpoints: CheckpointRow[] = [];
  private readonly boots: number[] = [];
  private readonly restores: number[] = [];
  private cumLogical = 0;
  private cumStored = 0;
  private liveTarget: Record<string, string | number | boolean> = {};

  /** Call before feeding the next run's events; `source` names the previous one in errors. */
  nextRun(source: string): void {
    this.requireStart(source);
    this.run++;
    this.sawStart = false;
  }

  private requireStart(source: string): void {
    if (!this.sawStart) throw new InputError(`${source} has no run-start event (is it a journal written by "soak run"?)`);
  }

  private key(cycle: number): number {
    return this.run * 2 ** 32 + cycle;
  }

  add(e: JournalEvent): void {
    switch (e.type) {
      case 'run-start':
        this.start ??= e;
        this.sawStart = true;
        break;
      case 'cycle-start':
        this.started.add(this.key(e.cycle));
        break;
      case 'cycle': {
        // The last outcome of a cycle id wins: a cycle is never counted twice.
        const { schemaVersion: _v, t: _t, type: _type, violations, ...rest } = e;
        const row: CycleRow = { ...rest, violations: violations.map((v) => v.code).join(' ') };
        this.outcomes.set(this.key(e.cycle), { row, violations: violations.length > 0 ? violations : NO_VIOLATIONS });
        break;
      }
      case 'checkpoint':
        this.cumLogical += e.logicalBytes;
        this.cumStored += e.storedBytes;
        this.checkpoints.push({ seq: e.seq, cycle: e.cycle, step: e.step, pauseMs: e.pauseMs, writeMs: e.writeMs, logicalBytes: e.logicalBytes, storedBytes: e.storedBytes, cumLogicalBytes: this.cumLogical, cumStoredBytes: this.cumStored });
        break;
      case 'boot':
        this.boots.push(e.bootMs);
        break;
      case 'target-info':
        if (this.run === 0) this.liveTarget = { ...this.liveTarget, ...e.info };
        break;
      case 'restore':
        this.restores.push(e.restoreMs);
        break;
      default:
        break;
    }
  }

  /** The analysis of everything fed so far. */
  finish(source: string): RunAnalysis {
    this.requireStart(source);
    const start = this.start!;
    const done = [...this.outcomes.entries()].sort((a, b) => a[0] - b[0]).map(([, o]) => o);
    const unfinished = [...this.started].filter((k) => !this.outcomes.has(k)).length;
    const ok = done.filter((c) => c.row.outcome === 'ok');
    const failed = done.filter((c) => c.row.outcome === 'fail').length;
    const downtimes = ok.map((c) => c.row.downtimeMs).filter((x): x is number => x !== null);
    const lost = ok.map((c) => c.row.lostSteps).filter((x): x is number => x !== null);
    const torn = done.filter((c) => c.row.observedPhase === 'checkpoint');
    const resumedAtAll = done.filter((c) => c.row.downtimeMs !== null);
    const violations = done.flatMap((c) => c.violations);
    const trials = done.length;
    const pauses = this.checkpoints.map((c) => c.pauseMs);
    const writes = this.checkpoints.map((c) => c.writeMs);
    return {
      summary: {
        schemaVersion: SUMMARY_SCHEMA_VERSION,
        runId: start.runId,
        scenario: start.scenario.name,
        target: start.scenario.target,
        date: start.startedAt.slice(0, 10),
        startedAt: start.startedAt,
        seed: start.scenario.seed,
        cycles: { total: trials + unfinished, resumed: ok.length, failed, indeterminate: unfinished },
        killResume: { successes: ok.length, trials, wilson95: wilson(ok.length, trials) },
        downtimeMs: summarize(downtimes),
        bootMs: summarize(this.boots),
        checkpointPauseMs: summarize(pauses),
        checkpointWriteMs: summarize(writes),
        restoreMs: summarize(this.restores),
        lostSteps: { n: lost.length, max: lost.reduce<number | null>((m, x) => (m === null || x > m ? x : m), null), mean: mean(lost) },
        tornCheckpoint: { trials: torn.length, previousRestored: torn.filter((c) => c.row.outcome === 'ok').length },
        noncePreserved: { trials: resumedAtAll.length, preserved: resumedAtAll.filter((c) => !c.violations.some((v) => v.code === 'nonce')).length },
        dedup: { checkpoints: this.checkpoints.length, logicalBytes: this.cumLogical, storedBytes: this.cumStored, ratio: this.cumStored > 0 ? this.cumLogical / this.cumStored : null },
        violations: violations.length,
        violationSamples: violations.slice(0, 10).map((v) => v.message),
        negativeControl: start.scenario.negativeControl,
        environment: { ...start.environment, target: { ...start.environment.target, ...this.liveTarget } },
      },
      cycles: done.map((c) => c.row),
      checkpoints: this.checkpoints,
      downtimes,
      cadence: { stepMs: start.scenario.stepMs, checkpoint: { everyMs: start.scenario.checkpoint.everyMs } },
    };
  }
}

/**
 * Analyse one run's events, or several runs (shards, nights) as one sample: cycles are keyed per run, so
 * merged statistics equal those of a single run over the union. Scenario, date and environment come from the first run.
 */
export function analyze(firstEvents: JournalEvent[], source = 'journal', more: { events: JournalEvent[]; source: string }[] = []): RunAnalysis {
  const acc = new RunAccumulator();
  const runs = [{ events: firstEvents, source }, ...more];
  runs.forEach((r, i) => {
    if (i > 0) acc.nextRun(runs[i - 1]!.source);
    for (const e of r.events) acc.add(e);
  });
  return acc.finish(runs.at(-1)!.source);
}

