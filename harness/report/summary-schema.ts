// The zod schema of summary.json (the analysed run, its verdict banner and judged gates), from which the checked-in
// JSON Schema schemas/summary.schema.json is generated; compile-time checks keep it equal to the TypeScript types.
import { z } from 'zod';
import type { Summary } from '../analysis/summary.js';
import { CAUSE_CODES } from '../journal/events.js';
import { sessionsSchema } from './sessions-schema.js';
import { hostCrashesSchema } from './host-crash-schema.js';
import { checkpointStormsSchema } from './checkpoint-storm-schema.js';
import { memoryPressureSchema } from './memory-pressure-schema.js';
import { workSchema } from './work-schema.js';
import { STATE_CLASS_IDS, type StateClass } from '../check/survival.js';
import type { GateResult } from '../gates/types.js';
import type { ReportVerdict } from '../gates/verdict.js';
import type { TimingJudgement } from '../gates/judge.js';

const num = z.number();
const nullableNum = z.number().nullable();
const interval = z.tuple([z.number(), z.number()]);
const VERDICTS = ['pass', 'fail', 'inconclusive', 'insufficient'] as const;

/** A distribution summary in ms; every figure null when n = 0. */
const distribution = z.object({
  n: num,
  min: nullableNum,
  p50: nullableNum,
  p90: nullableNum,
  p95: nullableNum,
  p99: nullableNum,
  max: nullableNum,
  mean: nullableNum,
});

/** A sampled machine-load figure: median and maximum over the run. */
const loadFigure = z.object({ p50: num, max: num });
const discipline = z.object({
  ...{ emitted: num, first: num, reEmitted: num, duplicates: num, deduplicated: num, worldAhead: num, lost: num },
  ...{ duplicates95: interval.nullable(), worldAhead95: interval.nullable(), lost95: interval.nullable() },
  reEmittedPerResume: z
    .object({ n: num, p50: num, p95: num, max: num })
    .nullable()
    .describe('re-emitted effects per resume: n resumes whose session was counted, p50/p95 (type 7) and max'),
});
const cloneDiscipline = z.object({
  ...{ emitted: num, first: num, duplicates: num, deduplicated: num, duplicates95: interval.nullable() },
});
const effectsSchema = z.object({
  accountings: num,
  resumes: num,
  disciplines: z.object({ 'step-key': discipline, 'random-key': discipline, 'no-key': discipline }),
  clones: z
    .object({
      n: num,
      disciplines: z.object({ 'step-key': cloneDiscipline, 'random-key': cloneDiscipline, 'no-key': cloneDiscipline }),
    })
    .optional()
    .describe('two sessions restored from one checkpoint (scenario effects.clones): what the clones caused'),
});
/** The guest state the resumes kept, per class (analysis/guest-state-tally.ts). */
const stateClass = z.enum(STATE_CLASS_IDS as [StateClass, ...StateClass[]]);
const classCounts = { survives: num, lost: num, changed: num, notApplicable: num, n: num };
const guestStateSchema = z.object({
  ...{ examined: num, unprobed: num, unexamined: num, problems: z.array(z.string()) },
  classes: z.array(
    z.object({ class: stateClass, ...classCounts, survives95: interval.nullable(), example: z.string().optional() }),
  ),
  promised: z.array(stateClass),
  promisedKept: z.object({ successes: num, trials: num, wilson95: interval.nullable() }),
});

/** The tested environment (redacted in every report). */
export const environmentSchema = z.object({
  os: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cores: num,
  memoryGiB: num,
  kernel: z.string(),
  kernelBuild: z.string().optional(),
  virtualization: z.string().optional(),
  node: z.string(),
  harnessVersion: z.string(),
  gitCommit: z.string(),
  target: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
});

/** The statistic a gate's threshold names, parsed once at load (gates/types.ts Statistic; gates/threshold.ts). */
const statisticSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('quantile'), q: num.describe('the quantile as a fraction: 0.95 for p95') }),
  z.object({ kind: z.literal('min') }),
  z.object({ kind: z.literal('max') }),
  z.object({ kind: z.literal('mean') }),
  z.object({
    kind: z.literal('wilson'),
    level: num.describe('confidence level in percent: 95 for wilson95'),
    side: z.enum(['lo', 'hi']),
  }),
  z.object({ kind: z.literal('failures') }),
  z.object({ kind: z.literal('successes') }),
  z.object({ kind: z.literal('count') }),
  z.object({ kind: z.literal('ratio') }),
]);

/** One judged gate, as `soak gates --json`, `soak run --json` and summary.json carry it. */
export const gateResultSchema = z.object({
  id: num,
  name: z.string(),
  title: z.string(),
  metric: z.string(),
  kind: z.enum(['rate', 'count', 'ratio', 'distribution']),
  unit: z.string(),
  threshold: z.string(),
  stat: statisticSchema,
  op: z.enum(['<', '<=', '>', '>=', '==']),
  bound: num,
  description: z.string(),
  value: nullableNum,
  observed: nullableNum,
  successes: nullableNum,
  judged: z.enum(['point', 'lower', 'upper']),
  interval: interval.nullable(),
  bounds: z.tuple([nullableNum, nullableNum]).nullable(),
  n: num,
  minN: num,
  verdict: z.enum(VERDICTS),
  solid: z.boolean(),
  note: z.string(),
  /** A timing gate judged on a saturated machine: its verdict as measured and the saturation with its figures. */
  saturated: z.object({ measured: z.enum(VERDICTS), reason: z.string() }).optional(),
  /** The anytime-valid decision (gates/anytime.ts): valid under peeking and optional stopping; absent in older reports. */
  anytime: z
    .object({
      decision: z.enum(['pass', 'fail', 'undecided']),
      method: z.enum(['e-process', 'gate-rule']),
      alpha: num,
      rate: z.string(),
      successes: nullableNum,
      trials: nullableNum,
      bar: nullableNum,
      interval: interval.nullable(),
      note: z.string(),
    })
    .optional(),
  /** A run stopped when decided: the fixed-n verdict, shown beside the anytime one, not used. */
  fixedN: z.enum(VERDICTS).optional(),
});

/** What the machine's load did to the timing gates (gates/judge.ts TimingJudgement). */
export const timingSchema = z.object({
  saturated: z.boolean(),
  load: z.object({ load1P50: num, stealPctP50: num, cores: num, samples: num }).nullable(),
  strict: z.boolean(),
  /** Timing gates that failed their bar on the saturated machine: inconclusive (saturated) unless strict. */
  failedTiming: z.array(num),
  warning: z.string().nullable(),
});

/** A run's verdict (--json `verdict`): a gate's, or adapter-fault (exit 5). */
export const verdictSchema = z.enum([...VERDICTS, 'adapter-fault']);

/** The analysed run (summary.json without its verdict banner and gates). */
export const summarySchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  scenario: z.string(),
  target: z.string(),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  startedAt: z.string(),
  seed: num,
  seedKey: z.string().optional(),
  cycles: z.object({ total: num, resumed: num, failed: num, indeterminate: num }),
  indeterminate: z
    .object({
      causes: z.partialRecord(z.enum([...CAUSE_CODES, 'unfinished']), num),
      samples: z.array(z.string()),
    })
    .optional(),
  runStatus: z
    .object({
      status: z.enum(['complete', 'interrupted', 'budget', 'aborted', 'unknown']),
      reason: z.string().optional(),
      /** A --until-decided run: its gates are judged on their anytime-valid decisions. */
      untilDecided: z.boolean().optional(),
      /** When and by what it stopped once its verdict was decided (absent: it ran out of budget undecided). */
      decided: z.object({ cycle: num, by: z.string() }).optional(),
    })
    .optional(),
  killResume: z.object({ successes: num, trials: num, wilson95: interval.nullable() }),
  downtimeMs: distribution,
  bootMs: distribution,
  bootSamples: num.optional(),
  checkpointPauseMs: distribution,
  checkpointWriteMs: distribution,
  restoreMs: distribution,
  lostSteps: z.object({ n: num, max: nullableNum, mean: nullableNum }),
  tornCheckpoint: z.object({ trials: num, previousRestored: num }),
  noncePreserved: z.object({ trials: num, preserved: num }),
  dedup: z.object({
    checkpoints: num,
    logicalBytes: num,
    storedBytes: num,
    ratio: nullableNum,
    committed: num.optional(),
    journaled: num.optional(),
    counted: z.enum(['store', 'journal']).optional(),
  }),
  violations: num,
  violationSamples: z.array(z.string()),
  adapterFaults: z.object({ count: num, samples: z.array(z.string()) }).optional(),
  negativeControl: z.boolean().optional(),
  standby: z.union([z.boolean(), z.literal('pool')]).optional(),
  restoreSources: z.record(z.string(), num).optional(),
  recheck: z.object({ rechecked: num, agreed: num, changed: num, changedCycles: z.array(num) }).optional(),
  environment: environmentSchema,
  plannedCycles: num.optional(),
  manualKills: z.boolean().optional(),
  sources: z
    .array(
      z.object({
        runId: z.string(),
        machine: z.string(),
        seed: num,
        shard: z.object({ index: num, count: num }).optional(),
        plannedCycles: num,
        cycles: num,
        firstCycle: nullableNum,
        lastCycle: nullableNum,
        status: z.enum(['complete', 'interrupted', 'budget', 'aborted', 'unknown']),
        /** Its store as its run-end recorded it (absent: no run-end, or one without the tally). */
        store: z
          .object({ checkpoints: num, logicalBytes: num, storedBytes: num, apartBytes: num.optional() })
          .optional(),
      }),
    )
    .optional(),
  missingShards: z.array(z.object({ index: num, count: num })).optional(),
  forcedOverlap: z.array(z.string()).optional(),
  machineLoad: z
    .object({
      samples: num,
      cores: num,
      load1: loadFigure,
      stealPct: loadFigure,
      otherCpuPct: loadFigure,
      saturated: z.boolean(),
      reason: z.string().nullable(),
    })
    .optional(),
  /** The run's span, ms (its run-end; a merge: its longest source's last load sample); absent when not journaled. */
  elapsedMs: num.optional(),
  effects: effectsSchema.optional(),
  guestState: guestStateSchema.optional(),
  sessions: sessionsSchema.optional(),
  hostCrashes: hostCrashesSchema.optional(),
  checkpointStorms: checkpointStormsSchema.optional(),
  memoryPressure: memoryPressureSchema.optional(),
  work: workSchema.optional(),
});

/** The report's verdict banner. */
const reportVerdictSchema = z.object({
  level: z.enum([...VERDICTS, 'adapter-fault', 'none']),
  headline: z.string(),
  detail: z.string(),
});

/** summary.json: the summary (its run status always present), the verdict banner and the judged gates. */
export const summaryFileSchema = summarySchema.extend({
  runStatus: summarySchema.shape.runStatus.unwrap(),
  verdict: reportVerdictSchema,
  gates: z.array(gateResultSchema),
  /** The machine's saturation and what it did to the timing gates (absent in reports written before it was recorded). */
  timing: timingSchema.optional(),
  /** The comparison with the previous report (`soak report --baseline`): its identity, gates then and now, downtime. */
  baseline: z.record(z.string(), z.unknown()).optional(),
  /** Measured durability per fault kind (absent when no fault but SIGKILL was planted). */
  durability: z
    .array(
      z.object({
        kind: z.string(),
        ...{ trials: num, ok: num, fail: num, indeterminate: num },
        /** Indeterminate cycles by cause (enospc, eio, host-hung...). */
        causes: z.record(z.string(), num).optional(),
        interval: interval.nullable(),
      }),
    )
    .optional(),
});

// True when A and B are one type at every depth: a field the code writes that the schema lacks fails to compile, even
// inside `sources[]` (assignability alone let sources[].store through).
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the exact-type test needs T twice
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Compile-time proof that the schemas infer the types the code writes (a drift on either side does not compile). */
export const OUTPUT_SCHEMAS_MATCH_TYPES: {
  summary: Same<z.infer<typeof summarySchema>, Summary>;
  gate: Same<z.infer<typeof gateResultSchema>, GateResult>;
  verdict: Same<z.infer<typeof reportVerdictSchema>, ReportVerdict>;
  timing: Same<z.infer<typeof timingSchema>, TimingJudgement>;
} = { summary: true, gate: true, verdict: true, timing: true };
