// Analysis: pure folds of journal events into the run's numbers. Never talks to a target. Events are folded one at a
// time and not kept, and per-cycle numbers go into typed columns, so a journal of any length is analysed streaming,
// in memory proportional to its cycles (tens of bytes each).
import { SideTallies } from './side-tallies.js';
import { CheckpointTableBuilder, CycleTableBuilder } from './tables.js';
import { byRow, countMissing, Float64Column, gather, lastWinsOrder, sortedDistinct } from './columns.js';
import { tallyCycles } from './tally.js';
import { Rejudge } from './rejudge.js';
import type { PartialFold } from './partial-fold.js';
import type { ObservationFields } from '../journal/observation.js';
import { dedupOf, storeRecords } from './checkpoint-gaps.js';
import { adapterFaultsOf, causeSamples, indeterminateOf, runFacts } from './run-status.js';
import { FreezeCycles } from './freeze-cycles.js';
import { LoadSamples } from './machine-load.js';
import type { IndeterminateCause, JournalEvent, RunEndEvent, RunStartEvent, Violation } from '../journal/events.js';
import { InputError } from '../core/errors.js';
import { mean, summarize } from '../stats/distribution.js';
import { wilson } from '../stats/wilson.js';
import { SUMMARY_SCHEMA_VERSION, type CheckpointRow, type CycleRow, type RunAnalysis } from './summary.js';
import { reportDate } from './report-date.js';
import { SessionFolds, sessionsSummary } from './session-folds.js';
import { sessionCycleKey } from '../journal/session-key.js';

export type { PartialFold } from './partial-fold.js';

/**
 * Folds the events of one or more runs (shards, nights) into one sample; cycles are keyed per run. Events come in
 * through add(), or already taken apart through the typed methods below (the journal's fast path, fastpath/line-reader.ts).
 */
export class RunAccumulator {
  private start: RunStartEvent | null = null;
  private run = 0;
  private sawStart = false;
  /** Every cycle outcome in journal order with its key; finish() keeps the last one per key. */
  private readonly outcomes = new CycleTableBuilder();
  private readonly outcomeKeys = new Float64Column();
  /** Violations of the outcomes that have any, by append index. */
  private readonly violationsAt = new Map<number, readonly Violation[]>();
  /** Causes of the outcomes that have one, by append index. */
  private readonly causesAt = new Map<number, IndeterminateCause>();
  /** Each run's last run-end (null: its runner never ended it), in run order. */
  private readonly ends: (RunEndEvent | null)[] = [null];
  private readonly startedKeys = new Float64Column();
  private readonly checkpoints = new CheckpointTableBuilder();
  private readonly boots = new Float64Column();
  private bootSamples = 0;
  private readonly restores = new Float64Column();
  /** Each cycle judged again from its journaled observation. */
  private readonly rejudge = new Rejudge();
  private readonly freezes = new FreezeCycles();
  private liveTarget: Record<string, string | number | boolean> = {};
  /** Restores by where the target read the checkpoint (restore events that say so). */
  private readonly restoreSources = new Map<string, number>();
  private readonly loads = new LoadSamples();
  private readonly side = new SideTallies(); // effects and guest-state events
  /** The latest run-end or machine-load time of any run (ms since that run started): summary.elapsedMs. */
  private lastT = 0;
  private session = 0; // of the event being added (issue 36); its folds apart:
  private readonly perSession = new SessionFolds(() => new RunAccumulator());

  /** Call before feeding the next run's events; `source` names the previous one in errors. */
  nextRun(source: string): void {
    this.requireStart(source);
    if (this.perSession.active) throw new InputError(`${source}: a run of several sessions is analysed alone`);
    this.run++;
    this.rejudge.nextRun();
    this.side.nextRun();
    this.sawStart = false;
    this.ends.push(null);
  }

  private requireStart(source: string): void {
    if (!this.sawStart)
      throw new InputError(`${source} has no run-start event (is it a journal written by "soak run"?)`);
  }

  private key(cycle: number): number {
    return this.run * 2 ** 38 + sessionCycleKey(this.session, cycle);
  }

  add(e: JournalEvent): void {
    if ((e.type === 'run-end' || e.type === 'machine-load') && e.t > this.lastT) this.lastT = e.t; // no fast-path type
    this.session = e.session ?? 0; // a session's lines never take the fast path, which leaves it 0
    this.perSession.add(e);
    switch (e.type) {
      case 'run-start':
        this.start ??= e;
        this.sawStart = true;
        break;
      case 'cycle-start':
        this.cycleStarted(e.cycle);
        break;
      case 'cycle': {
        const { schemaVersion: _v, t: _t, type: _type, violations, cause, ...rest } = e;
        const codes = violations.map((v) => v.code).join(' ');
        this.cycleEnded({ ...rest, violations: codes, cause: cause?.code ?? '' }, violations, cause ?? null);
        break;
      }
      case 'run-end':
        this.ends[this.run] = e;
        break;
      case 'checkpoint':
        this.checkpointCommitted(e);
        break;
      case 'boot':
        this.booted(e.bootMs, e.sample !== undefined);
        break;
      case 'target-info':
        if (this.run === 0) this.liveTarget = { ...this.liveTarget, ...e.info };
        break;
      case 'restore':
        this.restored(e.restoreMs);
        if (e.source !== undefined) this.restoreSources.set(e.source, (this.restoreSources.get(e.source) ?? 0) + 1);
        break;
      case 'observation':
        this.observed(e);
        this.side.work.add(e);
        break;
      case 'kill':
        this.killed(e.cycle);
        break;
      default:
        if (e.type === 'machine-load') this.loads.add(e);
        else if (e.type === 'fault' && e.kind === 'freeze') this.freezes.froze(this.key(e.cycle));
        else this.side.add(e);
        break;
    }
  }

  /** A run of several sessions: its lines are read by add() (the fast path declines them). */
  get severalSessions(): boolean {
    return this.perSession.active;
  }

  cycleStarted(cycle: number): void {
    this.startedKeys.push(this.key(cycle));
  }

  /** A cycle's outcome; the last one journaled for a cycle id wins, so a cycle is never counted twice. The row is copied. */
  cycleEnded(row: CycleRow, violations: readonly Violation[], cause: IndeterminateCause | null = null): void {
    this.rejudge.outcome(sessionCycleKey(this.session, row.cycle), this.outcomes.length);
    if (violations.length > 0) this.violationsAt.set(this.outcomes.length, violations);
    if (cause !== null) this.causesAt.set(this.outcomes.length, cause);
    this.outcomes.push(row);
    this.outcomeKeys.push(this.key(row.cycle));
  }

  /** A committed checkpoint (copied). */
  checkpointCommitted(c: CheckpointRow): void {
    this.checkpoints.push(c);
  }

  /** A boot time; `sample`: a boot sample's (boot-samples.ts), not a session's own boot. */
  booted(bootMs: number, sample = false): void {
    this.boots.push(bootMs);
    if (sample) this.bootSamples++;
  }

  /** A kill was sent in cycle `cycle` (a freeze followed by one was killed and resumed: a trial). */
  killed(cycle: number): void {
    this.freezes.kill(this.key(cycle));
  }

  restored(restoreMs: number): void {
    this.restores.push(restoreMs);
  }

  /** What a cycle's checker looked at (its outcome follows): judged again when the analysis finishes. */
  observed(o: ObservationFields): void {
    this.rejudge.observed(o, sessionCycleKey(this.session, o.cycle));
  }

  /** Everything fed so far, as a part to append to another accumulator (one run only: keys are cycle ids). */
  partial(): PartialFold {
    if (this.run !== 0) throw new Error('partial(): only a single-run fold can be handed on');
    return {
      start: this.start,
      liveTarget: this.liveTarget,
      outcomes: this.outcomes.encode(),
      violations: [...this.violationsAt],
      causes: [...this.causesAt],
      end: this.ends[0] ?? null,
      startedCycles: this.startedKeys.view(),
      checkpoints: this.checkpoints.build(),
      boots: this.boots.view(),
      bootSamples: this.bootSamples,
      restores: this.restores.view(),
      restoreSources: Object.fromEntries(this.restoreSources),
      rejudge: this.rejudge.partial(),
      loads: this.loads.columns(),
      freezes: this.freezes.partial(this.key(0)),
      ...this.side.partial(),
      lastT: this.lastT,
    };
  }

  /** Append the fold of the next part of the current run's journal, as if its events had been added here. */
  append(p: PartialFold): void {
    if (this.perSession.active) throw new InputError('a journal of several sessions is analysed on one thread only');
    if (p.start !== null) {
      this.start ??= p.start;
      this.sawStart = true;
    }
    if (this.run === 0) this.liveTarget = { ...this.liveTarget, ...p.liveTarget };
    for (const [row, violations] of p.violations) this.violationsAt.set(this.outcomes.length + row, violations);
    for (const [row, cause] of p.causes) this.causesAt.set(this.outcomes.length + row, cause);
    if (p.end !== null) this.ends[this.run] = p.end;
    this.rejudge.append(p.rejudge, this.outcomes.length, p.outcomes.cycle);
    this.outcomes.append(p.outcomes);
    this.outcomeKeys.pushAll(p.outcomes.cycle, this.key(0));
    this.startedKeys.pushAll(p.startedCycles, this.key(0));
    this.checkpoints.append(p.checkpoints);
    this.boots.pushAll(p.boots);
    this.bootSamples += p.bootSamples;
    this.restores.pushAll(p.restores);
    for (const [k, n] of Object.entries(p.restoreSources ?? {}))
      this.restoreSources.set(k, (this.restoreSources.get(k) ?? 0) + n);
    this.loads.append(p.loads);
    this.freezes.append(p.freezes, this.key(0));
    this.side.append(p);
    this.lastT = Math.max(this.lastT, p.lastT);
  }

  /** The analysis of everything fed so far. */
  finish(source: string): RunAnalysis {
    this.requireStart(source);
    const start = this.start!;
    const keys = this.outcomeKeys.view();
    const order = lastWinsOrder(keys);
    const violations = byRow(this.violationsAt, order);
    const { cycles, recheck } = this.rejudge.apply(this.outcomes.build(order), order, violations);
    const rowKeys = gather(keys, order);
    const tally = tallyCycles(cycles, violations, (row) => this.freezes.thawed(rowKeys[row]!));
    const unfinished = countMissing(sortedDistinct(this.startedKeys.view()), rowKeys);
    const samples = causeSamples(this.causesAt, order, (a) => this.outcomes.cycleAt(a));
    const indeterminate = indeterminateOf(tally.causes, unfinished, samples);
    const checkpoints = this.checkpoints.build();
    const { successes, trials } = tally.killResume;
    const found = [...violations.values()].flat();
    const allViolations = found.filter((v) => v.code !== 'adapter-fault'); // the checker's (and the runner's) findings
    const dedup = dedupOf(checkpoints, storeRecords(start, this.ends));
    const each = this.perSession.finish(source);
    return {
      summary: {
        schemaVersion: SUMMARY_SCHEMA_VERSION,
        runId: start.runId,
        scenario: start.scenario.name,
        target: start.scenario.target,
        date: reportDate(start.startedAt, start.seedKey),
        startedAt: start.startedAt,
        seed: start.scenario.seed,
        ...(start.seedKey !== undefined ? { seedKey: start.seedKey } : {}),
        cycles: {
          total: cycles.length + unfinished,
          resumed: tally.resumed,
          failed: tally.failed,
          indeterminate: tally.indeterminate + unfinished,
        },
        indeterminate,
        killResume: { successes, trials, wilson95: wilson(successes, trials) },
        downtimeMs: summarize(tally.downtimes),
        bootMs: summarize(this.boots.view()),
        bootSamples: this.bootSamples,
        checkpointPauseMs: summarize(checkpoints.pauseMs),
        checkpointWriteMs: summarize(checkpoints.writeMs),
        restoreMs: summarize(this.restores.view()),
        lostSteps: {
          n: tally.lost.length,
          max: tally.lost.reduce<number | null>((m, x) => (m === null || x > m ? x : m), null),
          mean: mean(tally.lost),
        },
        tornCheckpoint: tally.tornCheckpoint,
        noncePreserved: tally.noncePreserved,
        dedup,
        violations: allViolations.length,
        recheck,
        violationSamples: allViolations.slice(0, 10).map((v) => v.message),
        adapterFaults: adapterFaultsOf(found, this.ends),
        negativeControl: start.scenario.negativeControl,
        standby: start.scenario.standby,
        ...(this.restoreSources.size > 0 ? { restoreSources: Object.fromEntries(this.restoreSources) } : {}),
        ...(start.manualKills ? { manualKills: true } : {}),
        environment: { ...start.environment, target: { ...start.environment.target, ...this.liveTarget } },
        ...runFacts(start, this.loads.columns(), this.ends),
        ...(this.lastT > 0 ? { elapsedMs: this.lastT } : {}),
        ...this.side.summary(start, { ...start.environment.target, ...this.liveTarget }, checkpoints),
        ...(each.length > 0 ? { sessions: sessionsSummary(each, dedup, this.ends) } : {}),
      },
      cycles,
      checkpoints,
      downtimes: tally.downtimes,
      samples: { bootMs: this.boots.view(), restoreMs: this.restores.view() },
      cadence: { stepMs: start.scenario.stepMs, checkpoint: { everyMs: start.scenario.checkpoint.everyMs } },
      ...(each.length > 0 ? { perSession: each } : {}),
    };
  }
}
