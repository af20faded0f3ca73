// Building the per-cycle and per-checkpoint tables of an analysis column by column, and reading rows back out.
import {
  Float64Column,
  gather,
  gatherStrings,
  orNaN,
  orNull,
  StringColumn,
  type EncodedStrings,
  type RowOrder,
} from './columns.js';
import type { CauseCode, KillPhase, Outcome } from '../journal/events.js';
import type { CheckpointRow, CheckpointTable, CycleRow, CycleTable } from './summary.js';

/** Rows as sent between threads: number columns as they are, string columns encoded. */
export type Encoded<Row> = {
  readonly [K in keyof Row]-?: Row[K] extends number | null ? Float64Array : EncodedStrings<Extract<Row[K], string>>;
};

/** Appends cycle rows (values copied: a caller may reuse its row object), then builds the table in a chosen order. */
export class CycleTableBuilder {
  private readonly cycle = new Float64Column();
  private readonly phase = new StringColumn<KillPhase>();
  private readonly observedPhase = new StringColumn<KillPhase>();
  private readonly outcome = new StringColumn<Outcome>();
  private readonly downtimeMs = new Float64Column();
  private readonly killStep = new Float64Column();
  private readonly restoredSeq = new Float64Column();
  private readonly restoredStep = new Float64Column();
  private readonly lostSteps = new Float64Column();
  private readonly restoreKills = new Float64Column();
  private readonly violations = new StringColumn<string>();
  private readonly cause = new StringColumn<CauseCode | ''>();

  get length(): number {
    return this.cycle.length;
  }

  push(row: CycleRow): void {
    this.cycle.push(row.cycle);
    this.phase.push(row.phase);
    this.observedPhase.push(row.observedPhase);
    this.outcome.push(row.outcome);
    this.downtimeMs.push(orNaN(row.downtimeMs));
    this.killStep.push(row.killStep);
    this.restoredSeq.push(orNaN(row.restoredSeq));
    this.restoredStep.push(orNaN(row.restoredStep));
    this.lostSteps.push(orNaN(row.lostSteps));
    this.restoreKills.push(row.restoreKills);
    this.violations.push(row.violations);
    this.cause.push(row.cause ?? '');
  }

  /** Cycle id of appended row `i`. */
  cycleAt(i: number): number {
    return this.cycle.view()[i]!;
  }

  /** The rows so far, as appended, to send to another thread. */
  encode(): Encoded<CycleRow> {
    return {
      cycle: this.cycle.view(),
      phase: this.phase.encode(),
      observedPhase: this.observedPhase.encode(),
      outcome: this.outcome.encode(),
      downtimeMs: this.downtimeMs.view(),
      killStep: this.killStep.view(),
      restoredSeq: this.restoredSeq.view(),
      restoredStep: this.restoredStep.view(),
      lostSteps: this.lostSteps.view(),
      restoreKills: this.restoreKills.view(),
      violations: this.violations.encode(),
      cause: this.cause.encode(),
    };
  }

  /** Append rows another thread encoded (its part of a journal), in their order. */
  append(t: Encoded<CycleRow>): void {
    this.cycle.pushAll(t.cycle);
    this.phase.pushEncoded(t.phase);
    this.observedPhase.pushEncoded(t.observedPhase);
    this.outcome.pushEncoded(t.outcome);
    this.downtimeMs.pushAll(t.downtimeMs);
    this.killStep.pushAll(t.killStep);
    this.restoredSeq.pushAll(t.restoredSeq);
    this.restoredStep.pushAll(t.restoredStep);
    this.lostSteps.pushAll(t.lostSteps);
    this.restoreKills.pushAll(t.restoreKills);
    this.violations.pushEncoded(t.violations);
    this.cause.pushEncoded(t.cause);
  }

  /** The rows in `order` (null: as appended). */
  build(order: RowOrder): CycleTable {
    return {
      length: order === null ? this.length : order.length,
      cycle: gather(this.cycle.view(), order),
      phase: gatherStrings(this.phase.values, order),
      observedPhase: gatherStrings(this.observedPhase.values, order),
      outcome: gatherStrings(this.outcome.values, order),
      downtimeMs: gather(this.downtimeMs.view(), order),
      killStep: gather(this.killStep.view(), order),
      restoredSeq: gather(this.restoredSeq.view(), order),
      restoredStep: gather(this.restoredStep.view(), order),
      lostSteps: gather(this.lostSteps.view(), order),
      restoreKills: gather(this.restoreKills.view(), order),
      violations: gatherStrings(this.violations.values, order),
      cause: gatherStrings(this.cause.values, order),
    };
  }
}

/** Row i of a cycle table. */
export function cycleRow(t: CycleTable, i: number): CycleRow {
  return {
    cycle: t.cycle[i]!,
    phase: t.phase[i]!,
    observedPhase: t.observedPhase[i]!,
    outcome: t.outcome[i]!,
    downtimeMs: orNull(t.downtimeMs[i]!),
    killStep: t.killStep[i]!,
    restoredSeq: orNull(t.restoredSeq[i]!),
    restoredStep: orNull(t.restoredStep[i]!),
    lostSteps: orNull(t.lostSteps[i]!),
    restoreKills: t.restoreKills[i]!,
    violations: t.violations[i]!,
    ...(t.cause[i] ? { cause: t.cause[i] } : {}),
  };
}

/** Every row of a cycle table (small tables and tests; large ones are read row by row). */
export function cycleRows(t: CycleTable): CycleRow[] {
  return Array.from({ length: t.length }, (_, i) => cycleRow(t, i));
}

/** A cycle table holding `rows` in their order (fixtures, tests). */
export function cycleTable(rows: readonly CycleRow[]): CycleTable {
  const b = new CycleTableBuilder();
  for (const r of rows) b.push(r);
  return b.build(null);
}

/** Appends checkpoint rows (values copied), in journal order. */
export class CheckpointTableBuilder {
  private readonly seq = new Float64Column();
  private readonly pauseMs = new Float64Column();
  private readonly writeMs = new Float64Column();
  private readonly logicalBytes = new Float64Column();
  private readonly storedBytes = new Float64Column();

  push(row: CheckpointRow): void {
    this.seq.push(row.seq);
    this.pauseMs.push(row.pauseMs);
    this.writeMs.push(row.writeMs);
    this.logicalBytes.push(row.logicalBytes);
    this.storedBytes.push(row.storedBytes);
  }

  /** Append the rows of a table built elsewhere, in its order. */
  append(t: CheckpointTable): void {
    this.seq.pushAll(t.seq);
    this.pauseMs.pushAll(t.pauseMs);
    this.writeMs.pushAll(t.writeMs);
    this.logicalBytes.pushAll(t.logicalBytes);
    this.storedBytes.pushAll(t.storedBytes);
  }

  build(): CheckpointTable {
    return {
      length: this.seq.length,
      seq: this.seq.view(),
      pauseMs: this.pauseMs.view(),
      writeMs: this.writeMs.view(),
      logicalBytes: this.logicalBytes.view(),
      storedBytes: this.storedBytes.view(),
    };
  }
}

/** A checkpoint table holding `rows` in their order (fixtures, tests). */
export function checkpointTable(rows: readonly CheckpointRow[]): CheckpointTable {
  const b = new CheckpointTableBuilder();
  for (const r of rows) b.push(r);
  return b.build();
}
