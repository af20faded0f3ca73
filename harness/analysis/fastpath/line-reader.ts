// The fast path of journal analysis: the flat events the runner writes many times a cycle (cycle-start, checkpoint,
// kill, host-start, restore, boot, and cycle outcomes without violations) read straight from their bytes into a
// RunAccumulator, without JSON.parse or an object per line. A line is taken only in the exact compact form
// JournalWriter writes; any other line (other event types, violations, escapes, another key order, another
// schemaVersion, corruption) is left to JSON.parse, which reads it the same way or names it as corrupt.
import type { RunAccumulator } from '../accumulator.js';
import type { JournalEvent, KillPhase, Outcome } from '../../journal/events.js';
import { orNull } from '../columns.js';
import { JsonCursor } from './json-cursor.js';
import { knownStrings, literal, type Literal } from './json-literal.js';
import type { FastLine } from '../../journal/reader.js';
import type { CheckpointRow, CycleRow } from '../summary.js';

/** Only schemaVersion 1 lines are fast; JSON.parse reports any other version. */
const HEAD = literal('{"schemaVersion":1,"t":');
const CLOSE = literal('}');
const EMPTY_LIST = literal('[]');
const TYPES = knownStrings<JournalEvent['type']>([
  'checkpoint',
  'cycle-start',
  'kill',
  'host-start',
  'restore',
  'cycle',
  'boot',
]);
const PHASES = knownStrings<KillPhase>(['work', 'checkpoint', 'restore']);
const OUTCOMES = knownStrings<Outcome>(['ok', 'fail', 'info']);

/** `,"name":` for each field name, in the form JSON.stringify writes it. */
function keys<T extends string>(...names: T[]): Record<T, Literal> {
  return Object.fromEntries(names.map((n) => [n, literal(`,${JSON.stringify(n)}:`)])) as Record<T, Literal>;
}

const K = keys(
  'type',
  'cycle',
  'phase',
  'observedPhase',
  'outcome',
  'downtimeMs',
  'killStep',
  'restoredSeq',
  'restoredStep',
  'lostSteps',
  'restoreKills',
  'violations',
  'seq',
  'step',
  'pauseMs',
  'writeMs',
  'logicalBytes',
  'storedBytes',
  'chunks',
  'newChunks',
  'meta',
  'atStep',
  'nonce',
  'lastCommittedSeq',
  'lastCommittedStep',
  'inFlightSeq',
  'pid',
  'mode',
  'restoreMs',
  'bootMs',
);

/** Reads journal lines for one accumulator; one cursor and one row of each kind, reused for every line. */
export class AnalysisLineReader {
  private readonly c = new JsonCursor();
  private readonly cycle: CycleRow = {
    cycle: 0,
    phase: 'work',
    observedPhase: 'work',
    outcome: 'ok',
    downtimeMs: null,
    killStep: 0,
    restoredSeq: null,
    restoredStep: null,
    lostSteps: null,
    restoreKills: 0,
    violations: '',
  };
  private readonly checkpoint: CheckpointRow = { seq: 0, pauseMs: 0, writeMs: 0, logicalBytes: 0, storedBytes: 0 };

  constructor(private readonly acc: RunAccumulator) {}

  /** This reader as streamJournal's fast path. */
  get fastLine(): FastLine {
    return (bytes, start, end) => this.read(bytes, start, end);
  }

  /** Feed bytes[start, end) (one complete line) to the accumulator; false, feeding nothing, when JSON.parse must read it. */
  read(bytes: Buffer, start: number, end: number): boolean {
    const c = this.c;
    c.reset(bytes, start, end);
    c.literal(HEAD);
    c.skipNumber();
    c.literal(K.type);
    switch (c.oneOf(TYPES)) {
      case 'checkpoint':
        return this.readCheckpoint();
      case 'cycle-start':
        return this.readCycleStart();
      case 'kill':
        return this.readKill();
      case 'host-start':
        return this.readHostStart();
      case 'restore':
        return this.readRestore();
      case 'cycle':
        return this.readCycle();
      case 'boot':
        return this.readBoot();
      default:
        return false;
    }
  }

  /** The closing brace, and nothing after it. */
  private closed(): boolean {
    this.c.literal(CLOSE);
    return this.c.done();
  }

  private readCheckpoint(): boolean {
    const { c, checkpoint: r } = this;
    c.literal(K.cycle);
    c.skipNumber();
    c.literal(K.seq);
    r.seq = c.number();
    c.literal(K.step);
    c.skipNumber();
    c.literal(K.pauseMs);
    r.pauseMs = c.number();
    c.literal(K.writeMs);
    r.writeMs = c.number();
    c.literal(K.logicalBytes);
    r.logicalBytes = c.number();
    c.literal(K.storedBytes);
    r.storedBytes = c.number();
    c.literal(K.chunks);
    c.skipNumber();
    c.literal(K.newChunks);
    c.skipNumber();
    c.literal(K.meta);
    c.skipFlatObject();
    if (!this.closed()) return false;
    this.acc.checkpointCommitted(r);
    return true;
  }

  private readCycleStart(): boolean {
    const c = this.c;
    c.literal(K.cycle);
    const cycle = c.number();
    c.literal(K.phase);
    c.skipString();
    if (!this.closed()) return false;
    this.acc.cycleStarted(cycle);
    return true;
  }

  /** Kills matter to the runner, not to analysis: checked, not kept. */
  private readKill(): boolean {
    const c = this.c;
    c.literal(K.cycle);
    c.skipNumber();
    c.literal(K.phase);
    c.skipString();
    c.literal(K.observedPhase);
    c.skipString();
    c.literal(K.atStep);
    c.skipNumber();
    c.literal(K.nonce);
    c.skipString();
    c.literal(K.lastCommittedSeq);
    c.skipNumber();
    c.literal(K.lastCommittedStep);
    c.skipNumber();
    c.literal(K.inFlightSeq);
    c.numberOrNull();
    return this.closed();
  }

  /** Host starts matter to the runner, not to analysis: checked, not kept. */
  private readHostStart(): boolean {
    const c = this.c;
    c.literal(K.cycle);
    c.skipNumber();
    c.literal(K.pid);
    c.skipNumber();
    c.literal(K.mode);
    c.skipString();
    return this.closed();
  }

  private readRestore(): boolean {
    const c = this.c;
    c.literal(K.cycle);
    c.skipNumber();
    c.literal(K.seq);
    c.skipNumber();
    c.literal(K.step);
    c.skipNumber();
    c.literal(K.restoreMs);
    const restoreMs = c.number();
    if (!this.closed()) return false;
    this.acc.restored(restoreMs);
    return true;
  }

  private readBoot(): boolean {
    const c = this.c;
    c.literal(K.cycle);
    c.skipNumber();
    c.literal(K.bootMs);
    const bootMs = c.number();
    c.literal(K.nonce);
    c.skipString();
    if (!this.closed()) return false;
    this.acc.booted(bootMs);
    return true;
  }

  /** A cycle outcome with no violations (one with violations needs their messages: JSON.parse reads it). */
  private readCycle(): boolean {
    const { c, cycle: r } = this;
    c.literal(K.cycle);
    r.cycle = c.number();
    c.literal(K.phase);
    r.phase = c.oneOf(PHASES);
    c.literal(K.observedPhase);
    r.observedPhase = c.oneOf(PHASES);
    c.literal(K.outcome);
    r.outcome = c.oneOf(OUTCOMES);
    c.literal(K.downtimeMs);
    r.downtimeMs = orNull(c.numberOrNull());
    c.literal(K.killStep);
    r.killStep = c.number();
    c.literal(K.restoredSeq);
    r.restoredSeq = orNull(c.numberOrNull());
    c.literal(K.restoredStep);
    r.restoredStep = orNull(c.numberOrNull());
    c.literal(K.lostSteps);
    r.lostSteps = orNull(c.numberOrNull());
    c.literal(K.restoreKills);
    r.restoreKills = c.number();
    c.literal(K.violations);
    c.literal(EMPTY_LIST);
    if (!this.closed()) return false;
    this.acc.cycleEnded(r, NO_VIOLATIONS);
    return true;
  }
}

const NO_VIOLATIONS: readonly never[] = [];
