// The fast path of journal analysis: the flat events the runner writes many times a cycle (cycle-start, checkpoint,
// kill, host-start, restore, observation, boot, and cycle outcomes without violations) read straight from their
// bytes into a RunAccumulator, without JSON.parse or an object per line. A line is taken only in the exact compact form
// JournalWriter writes; any other line (other event types, violations, escapes, another key order, another
// schemaVersion, corruption) is left to JSON.parse, which reads it the same way or names it as corrupt. Every field is
// checked against the journal schema's rules (schema.ts: cycle ids >= 1, finite durations >= 0, closed string sets), so a
// line breaking one is declined too, and the schema names its field exactly as without the fast path.
import type { RunAccumulator } from '../accumulator.js';
import { COUNT, CYCLE_ID, DURATION_MS, follows, type NumberRule, STEP_DELTA } from '../../journal/number-rules.js';
import { HOST_MODES, KILL_PHASES, OUTCOMES } from '../../journal/schema.js';
import { fieldOrder, type FieldOf } from '../../journal/codec.js';
import { orNull } from '../columns.js';
import { JsonCursor } from './json-cursor.js';
import { knownStrings, literal, type Literal } from './json-literal.js';
import type { Admit, FastLine } from '../../journal/reader.js';
import type { ObservationFields } from '../../journal/observation.js';
import type { PartState } from '../../check/heartbeat.js';
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
const PHASES = knownStrings(KILL_PHASES);
const OUTCOME_STRINGS = knownStrings(OUTCOMES);
const MODES = knownStrings(HOST_MODES);
/** An observation's state part ({step, digest}, as observationEvent writes it). */
const PART_STEP = literal('{"step":');
const PART_DIGEST = literal(',"digest":');

/**
 * The digits before the point that a plain positive number (no sign, no exponent, first digit 1-9) may have and still
 * follow `rule` for sure: it is then >= 1 >= rule.min and < 10^digits <= rule.max.
 */
function plainDigits(rule: NumberRule): number {
  if (rule.min > 1) throw new Error(`plainDigits: a rule with min ${rule.min} > 1 needs its own check`);
  return Math.floor(Math.log10(rule.max));
}
/** A cycle with no cause: `"cause":null`, or no member at all (journals written before outcomes had causes). */
const NO_CAUSE = literal(',"cause":null');
/** A boot sample's id, the last member of its boot event (absent for a session's own boot). */
const SAMPLE_KEY = literal(',"sample":');

/** How to read one field's value at the cursor (after its key has matched). */
type ReadValue = () => void;

/** One field to match: its key as JSON.stringify writes it (`,"name":`) and how to read its value. */
interface FieldStep {
  key: Literal;
  read: ReadValue;
}

/** The steps for event type `type`: its keys in the codec's order (FIELD_ORDER), each with its value reader. */
function steps<T extends FastType>(
  type: T,
  readers: { [F in Exclude<FieldOf<T>, 'session'>]: ReadValue | null },
): FieldStep[] {
  return fieldOrder(type).flatMap((name) => {
    const read = name === 'session' ? null : readers[name as Exclude<FieldOf<T>, 'session'>]; // a session's line: slow
    return read === null ? [] : [{ key: literal(`,${JSON.stringify(name)}:`), read }];
  });
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
    cause: '',
  };
  /** The observation being read (its parts are new objects per line: the checker may keep them in a violation). */
  private readonly observation: ObservationFields = {
    cycle: 0,
    restoredSeq: 0,
    restoredStep: 0,
    killStep: 0,
    nonce: '',
    latestCompleteSeq: null,
    step: 0,
    heartbeatNonce: '',
    full: true,
  };
  private readonly checkpoint: CheckpointRow = { seq: 0, pauseMs: 0, writeMs: 0, logicalBytes: 0, storedBytes: 0 };
  /** Values kept from the line being read for the accumulator calls that are not rows. */
  private cycleId = 0;
  private ms = 0;
  /** The boot read last is a boot sample's. */
  private sample = false;
  /** Read a boot sample's id (after its key) against the schema's rule. */
  private readonly sampleId: () => number;
  private readonly steps: Record<FastType, FieldStep[]>;
  /** The line's time `t`, read and checked. */
  private t = 0;

  constructor(private readonly acc: RunAccumulator) {
    const { c, cycle: r, checkpoint: k, observation: o } = this;
    /** A number that must follow `rule` (schema.ts), or null (as NaN) when `orNull`. */
    const num = (rule: NumberRule): number => {
      const x = c.number();
      c.require(follows(rule, x));
      return x;
    };
    const numOrNull = (rule: NumberRule): number => {
      const x = c.numberOrNull();
      c.require(Number.isNaN(x) || follows(rule, x));
      return x;
    };
    /** Check a number against `rule` without converting it when its text shows it in range (the common case). */
    const check = (rule: NumberRule): ReadValue => {
      const digits = plainDigits(rule);
      const fraction = !rule.integer;
      return () => {
        if (!c.skipPlainNumber(digits, fraction)) c.require(follows(rule, c.scannedValue()));
      };
    };
    const checkOrNull =
      (rule: NumberRule): ReadValue =>
      () =>
        void numOrNull(rule);
    const skipString: ReadValue = () => c.skipString();
    const skipPhase: ReadValue = () => void c.oneOf(PHASES);
    const part = (): PartState => {
      c.literal(PART_STEP);
      const step = num(COUNT);
      c.literal(PART_DIGEST);
      const digest = c.string();
      c.literal(CLOSE);
      return { step, digest };
    };
    this.sampleId = () => num(CYCLE_ID);
    this.steps = {
      checkpoint: steps('checkpoint', {
        cycle: check(CYCLE_ID),
        seq: () => (k.seq = num(COUNT)),
        step: check(COUNT),
        pauseMs: () => (k.pauseMs = num(DURATION_MS)),
        writeMs: () => (k.writeMs = num(DURATION_MS)),
        logicalBytes: () => (k.logicalBytes = num(COUNT)),
        storedBytes: () => (k.storedBytes = num(COUNT)),
        chunks: check(COUNT),
        newChunks: check(COUNT),
        meta: () => c.skipFlatRecord(),
      }),
      'cycle-start': steps('cycle-start', { cycle: () => (this.cycleId = num(CYCLE_ID)), phase: skipPhase }),
      // Kills and host starts matter to the runner, not to analysis: checked, not kept.
      kill: steps('kill', {
        cycle: () => (this.cycleId = num(CYCLE_ID)),
        phase: skipPhase,
        observedPhase: skipPhase,
        atStep: check(COUNT),
        nonce: skipString,
        lastCommittedSeq: check(COUNT),
        lastCommittedStep: check(COUNT),
        inFlightSeq: checkOrNull(COUNT),
      }),
      'host-start': steps('host-start', { cycle: check(CYCLE_ID), pid: check(COUNT), mode: () => void c.oneOf(MODES) }),
      restore: steps('restore', {
        cycle: check(CYCLE_ID),
        seq: check(COUNT),
        step: check(COUNT),
        restoreMs: () => (this.ms = num(DURATION_MS)),
        // the last member, and optional (targets that say where they restored from): JSON.parse reads such a line
        source: null,
      }),
      // What the checker looked at: analysis judges the cycle again from it. One from a heartbeat that was not full
      // lacks its parts: JSON.parse reads it.
      observation: steps('observation', {
        cycle: () => (o.cycle = num(CYCLE_ID)),
        restoredSeq: () => (o.restoredSeq = num(COUNT)),
        restoredStep: () => (o.restoredStep = num(COUNT)),
        killStep: () => (o.killStep = num(COUNT)),
        nonce: () => (o.nonce = c.string()),
        latestCompleteSeq: () => (o.latestCompleteSeq = orNull(numOrNull(COUNT))),
        step: () => (o.step = num(COUNT)),
        heartbeatNonce: () => (o.heartbeatNonce = c.string()),
        full: () => (o.full = c.boolean()),
        fs: () => (o.fs = part()),
        mem: () => (o.mem = part()),
        tool: () => (o.tool = part()),
        // only on power-loss cycles, and last: a line with it does not close here, so JSON.parse reads it
        acknowledgedSeq: null,
        // only from targets that time their resume (micro-VM, exec) or guests running the coding workload: JSON.parse
        ran: null,
        work: null,
        workBefore: null,
      }),
      boot: steps('boot', {
        cycle: check(CYCLE_ID),
        bootMs: () => (this.ms = num(DURATION_MS)),
        nonce: skipString,
        // the last member, and optional: matched in fields()
        sample: null,
      }),
      // A cycle outcome with no violations (one with violations needs their messages: JSON.parse reads it).
      cycle: steps('cycle', {
        cycle: () => (r.cycle = num(CYCLE_ID)),
        phase: () => (r.phase = c.oneOf(PHASES)),
        observedPhase: () => (r.observedPhase = c.oneOf(PHASES)),
        outcome: () => (r.outcome = c.oneOf(OUTCOME_STRINGS)),
        downtimeMs: () => (r.downtimeMs = orNull(numOrNull(DURATION_MS))),
        killStep: () => (r.killStep = num(COUNT)),
        restoredSeq: () => (r.restoredSeq = orNull(numOrNull(COUNT))),
        restoredStep: () => (r.restoredStep = orNull(numOrNull(COUNT))),
        lostSteps: () => (r.lostSteps = orNull(numOrNull(STEP_DELTA))),
        restoreKills: () => (r.restoreKills = num(COUNT)),
        violations: () => c.literal(EMPTY_LIST),
        // the last member, and optional: matched in fields() (a cycle with a cause is rare: JSON.parse reads it)
        cause: null,
      }),
    };
  }

  /** This reader as streamJournal's fast path. */
  get fastLine(): FastLine {
    return (bytes, start, end, admit) => this.read(bytes, start, end, admit);
  }

  /**
   * Feed bytes[start, end) (one complete line) to the accumulator once `admit` (the journal's protocol) counts it;
   * false, feeding nothing, when JSON.parse must read it.
   */
  read(bytes: Buffer, start: number, end: number, admit: Admit = ADMIT_ALL): boolean {
    if (this.acc.severalSessions) return false; // add() keeps each session's events apart too (session-folds.ts)
    const c = this.c;
    c.reset(bytes, start, end);
    c.literal(HEAD);
    this.t = c.number();
    c.require(follows(DURATION_MS, this.t));
    c.literal(TYPE_KEY);
    const type = c.oneOf(TYPES);
    if (!this.fields(type)) return false;
    if (!admit(type, this.t, type === 'cycle' ? this.cycle.cycle : 0)) return true;
    switch (type) {
      case 'checkpoint':
        this.acc.checkpointCommitted(this.checkpoint);
        return true;
      case 'cycle-start':
        this.acc.cycleStarted(this.cycleId);
        return true;
      case 'kill':
        this.acc.killed(this.cycleId);
        return true;
      case 'restore':
        this.acc.restored(this.ms);
        return true;
      case 'boot':
        this.acc.booted(this.ms, this.sample);
        return true;
      case 'cycle':
        this.acc.cycleEnded(this.cycle, NO_VIOLATIONS);
        return true;
      case 'observation':
        this.acc.observed(this.observation);
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
    if (type === 'cycle') c.optional(NO_CAUSE);
    else if (type === 'boot') this.sample = c.optional(SAMPLE_KEY) && this.sampleId() >= 1;
    c.literal(CLOSE);
    return c.done();
  }
}

const NO_VIOLATIONS: readonly never[] = [];
const ADMIT_ALL: Admit = () => true;
