// The fast path of journal analysis: the flat events the runner writes many times a cycle (cycle-start, checkpoint,
// kill, host-start, restore, observation, boot, and cycle outcomes without violations) read straight from their
// bytes into a RunAccumulator, without JSON.parse or an object per line. A line is taken only in the exact compact form
// JournalWriter writes; any other line (other event types, violations, escapes, another key order, another
// schemaVersion, corruption) is left to JSON.parse, which reads it the same way or names it as corrupt.
import type { RunAccumulator } from '../accumulator.js';
import type { KillPhase, Outcome } from '../../journal/events.js';
import { fieldOrder, type FieldOf } from '../../journal/codec.js';
import { orNull } from '../columns.js';
import { JsonCursor } from './json-cursor.js';
import { knownStrings, literal, type Literal } from './json-literal.js';
import type { FastLine } from '../../journal/reader.js';
import type { CheckpointRow, CycleRow } from '../summary.js';

/** Only schemaVersion 1 lines are fast; JSON.parse reports any other version. */
const HEAD = literal('{"schemaVersion":1,"t":');
const CLOSE = literal('}');
const EMPTY_LIST = literal('[]');
/** The event types the fast path reads. */
const FAST_TYPES = [
  'checkpoint',
  'cycle-start',
  'kill',
  'host-start',
  'restore',
  'observation',
  'cycle',
  'boot',
] as const;
type FastType = (typeof FAST_TYPES)[number];
const TYPES = knownStrings<FastType>(FAST_TYPES);
const PHASES = knownStrings<KillPhase>(['work', 'checkpoint', 'restore']);
const OUTCOMES = knownStrings<Outcome>(['ok', 'fail', 'info']);

/** How to read one field's value at the cursor (after its key has matched). */
type ReadValue = () => void;

/** One field to match: its key as JSON.stringify writes it (`,"name":`) and how to read its value. */
interface FieldStep {
  key: Literal;
  read: ReadValue;
}

/** The steps for event type `type`: its keys in the codec's order (FIELD_ORDER), each with its value reader. */
function steps<T extends FastType>(type: T, readers: { [F in FieldOf<T>]: ReadValue }): FieldStep[] {
  return fieldOrder(type).map((name) => ({ key: literal(`,${JSON.stringify(name)}:`), read: readers[name] }));
}

const TYPE_KEY = literal(',"type":');

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
  /** Values kept from the line being read for the accumulator calls that are not rows. */
  private cycleId = 0;
  private ms = 0;
  private readonly steps: Record<FastType, FieldStep[]>;

  constructor(private readonly acc: RunAccumulator) {
    const { c, cycle: r, checkpoint: k } = this;
    const skipNumber: ReadValue = () => c.skipNumber();
    const skipString: ReadValue = () => c.skipString();
    const skipNumberOrNull: ReadValue = () => void c.numberOrNull();
    const skipPart: ReadValue = () => c.skipFlatObject();
    this.steps = {
      checkpoint: steps('checkpoint', {
        cycle: skipNumber,
        seq: () => (k.seq = c.number()),
        step: skipNumber,
        pauseMs: () => (k.pauseMs = c.number()),
        writeMs: () => (k.writeMs = c.number()),
        logicalBytes: () => (k.logicalBytes = c.number()),
        storedBytes: () => (k.storedBytes = c.number()),
        chunks: skipNumber,
        newChunks: skipNumber,
        meta: () => c.skipFlatObject(),
      }),
      'cycle-start': steps('cycle-start', { cycle: () => (this.cycleId = c.number()), phase: skipString }),
      // Kills and host starts matter to the runner, not to analysis: checked, not kept.
      kill: steps('kill', {
        cycle: skipNumber,
        phase: skipString,
        observedPhase: skipString,
        atStep: skipNumber,
        nonce: skipString,
        lastCommittedSeq: skipNumber,
        lastCommittedStep: skipNumber,
        inFlightSeq: skipNumberOrNull,
      }),
      'host-start': steps('host-start', { cycle: skipNumber, pid: skipNumber, mode: skipString }),
      restore: steps('restore', {
        cycle: skipNumber,
        seq: skipNumber,
        step: skipNumber,
        restoreMs: () => (this.ms = c.number()),
      }),
      // What the checker looked at matters to `soak check`, not to analysis: checked, not kept. One from a heartbeat
      // that was not full lacks its parts: JSON.parse reads it.
      observation: steps('observation', {
        cycle: skipNumber,
        restoredSeq: skipNumber,
        restoredStep: skipNumber,
        killStep: skipNumber,
        nonce: skipString,
        latestCompleteSeq: skipNumberOrNull,
        step: skipNumber,
        heartbeatNonce: skipString,
        full: () => c.skipScalar(),
        fs: skipPart,
        mem: skipPart,
        tool: skipPart,
      }),
      boot: steps('boot', { cycle: skipNumber, bootMs: () => (this.ms = c.number()), nonce: skipString }),
      // A cycle outcome with no violations (one with violations needs their messages: JSON.parse reads it).
      cycle: steps('cycle', {
        cycle: () => (r.cycle = c.number()),
        phase: () => (r.phase = c.oneOf(PHASES)),
        observedPhase: () => (r.observedPhase = c.oneOf(PHASES)),
        outcome: () => (r.outcome = c.oneOf(OUTCOMES)),
        downtimeMs: () => (r.downtimeMs = orNull(c.numberOrNull())),
        killStep: () => (r.killStep = c.number()),
        restoredSeq: () => (r.restoredSeq = orNull(c.numberOrNull())),
        restoredStep: () => (r.restoredStep = orNull(c.numberOrNull())),
        lostSteps: () => (r.lostSteps = orNull(c.numberOrNull())),
        restoreKills: () => (r.restoreKills = c.number()),
        violations: () => c.literal(EMPTY_LIST),
      }),
    };
  }

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
    c.literal(TYPE_KEY);
    const type = c.oneOf(TYPES);
    if (!this.fields(type)) return false;
    switch (type) {
      case 'checkpoint':
        this.acc.checkpointCommitted(this.checkpoint);
        return true;
      case 'cycle-start':
        this.acc.cycleStarted(this.cycleId);
        return true;
      case 'restore':
        this.acc.restored(this.ms);
        return true;
      case 'boot':
        this.acc.booted(this.ms);
        return true;
      case 'cycle':
        this.acc.cycleEnded(this.cycle, NO_VIOLATIONS);
        return true;
      default:
        return true;
    }
  }

  /** Match `type`'s fields in codec order, then the closing brace and nothing after it; false on any mismatch. */
  private fields(type: FastType): boolean {
    const c = this.c;
    for (const step of this.steps[type]) {
      c.literal(step.key);
      step.read();
    }
    c.literal(CLOSE);
    return c.done();
  }
}

const NO_VIOLATIONS: readonly never[] = [];
