// Every machine-readable output of the CLI, each with a zod schema and a JSON Schema generated from it
// (schemas/<name>.schema.json, checked in; test/report/output-schemas.test.ts keeps the files equal to these and
// validates real outputs against them). Each output carries `schemaVersion` = OUTPUT_SCHEMA_VERSION.
import { z } from 'zod';
import { STATE_CLASS_IDS, type StateClass } from '../check/survival.js';
import { strictJsonSchema } from '../core/json-schema.js';
import { gateResultSchema, summaryFileSchema, summarySchema, timingSchema, verdictSchema } from './summary-schema.js';

/** The version every `--json` output carries; bump it (and regenerate schemas/) on an incompatible change. */
export const OUTPUT_SCHEMA_VERSION = 1;

const version = z.literal(OUTPUT_SCHEMA_VERSION);
const num = z.number();
const nullableNum = z.number().nullable();
/** A nested record whose own fields are documented in the code; extra fields are allowed for additive changes. */
const loose = <T extends z.core.$ZodLooseShape>(shape: T): z.ZodObject<T, z.core.$loose> => z.looseObject(shape);

const comparison = loose({ nA: num, nB: num, diff: num, pValue: num, ci: z.tuple([num, num]), verdict: z.string() });

/** Each output by the file name of its JSON Schema (schemas/<name>.schema.json) and what produces it. */
export const OUTPUT_SCHEMAS = {
  summary: { produces: 'summary.json of a dated report', schema: summaryFileSchema },
  run: {
    produces: 'soak run --json',
    schema: z.object({
      schemaVersion: version,
      runDir: z.string(),
      status: z.enum(['complete', 'interrupted', 'budget', 'aborted']),
      reportDir: z.string().nullable(),
      verdict: verdictSchema,
      /** false with --no-judge: the exit code did not follow the verdict. */
      judged: z.boolean(),
      summary: summarySchema,
      gates: z.array(gateResultSchema),
      /** The machine's saturation and what it did to the timing gates. */
      timing: timingSchema,
    }),
  },
  report: {
    produces: 'soak report --json',
    schema: z.object({
      schemaVersion: version,
      dir: z.string(),
      files: z.array(z.string()),
      verdict: verdictSchema,
      timing: timingSchema,
      /** The baseline report compared with (--baseline), null when none was found; absent without --baseline. */
      baseline: z.string().nullable().optional(),
    }),
  },
  gates: {
    produces: 'soak gates --json',
    schema: z.object({
      schemaVersion: version,
      runDirs: z.array(z.string()),
      verdict: verdictSchema,
      gates: z.array(gateResultSchema),
      timing: timingSchema,
    }),
  },
  merge: {
    produces: 'soak merge --json',
    schema: z.object({
      schemaVersion: version,
      runDir: z.string(),
      sources: num,
      cycles: num,
      /** With --force: why each pair of sources overlaps (empty: none did). */
      forcedOverlap: z.array(z.string()),
    }),
  },
  check: {
    produces: 'soak check --json',
    schema: z.object({
      schemaVersion: version,
      runDir: z.string(),
      exitCode: num,
      cycles: num,
      rechecked: num,
      agreed: num,
      changed: z.array(loose({ cycle: num })),
      unobserved: num,
      indeterminate: z.array(num),
      journaledFailures: num,
      recheckedFailures: num,
      /** Cycles failed with adapter-fault violations only, and runners ended by one: exit 5 unless a FAIL. */
      adapterFaults: num,
      /** Failed cycles with a violation of the system under test: exit 1. */
      systemFailures: num,
      /** Protocol errors of the journal (journal/protocol.ts), the first 1000 by line; any makes the exit code 3. */
      journalErrors: z.array(z.object({ line: num, code: z.string(), message: z.string() })),
      journalErrorCount: num,
    }),
  },
  compare: {
    produces: 'soak compare --json',
    schema: z.object({
      schemaVersion: version,
      runA: z.string(),
      runB: z.string(),
      warnings: z.array(z.string()),
      /** Both environments side by side: [fact, run A, run B]. */
      environments: z.array(z.tuple([z.string(), z.string(), z.string()])),
      downtimeMs: comparison.nullable(),
      checkpointPauseMs: comparison.nullable(),
    }),
  },
  'store-stats': {
    produces: 'soak store stats --json',
    schema: z.object({
      schemaVersion: version,
      checkpoints: z.array(loose({ seq: num, logicalBytes: num, storedBytes: num })),
      logicalBytes: num,
      guestLogicalBytes: num,
      guestRatio: nullableNum,
      storedBytes: num,
      ratio: nullableNum,
      diskBytes: num,
      skipped: z.array(loose({ problem: z.string() })),
    }),
  },
  'store-verify': {
    produces: 'soak store verify --json',
    schema: z.object({
      schemaVersion: version,
      checkpoints: num,
      chunksChecked: num,
      problems: z.array(loose({})),
    }),
  },
  'store-gc': {
    produces: 'soak store gc --json',
    schema: loose({ schemaVersion: version, keep: num, kept: z.array(num), removed: z.array(num) }),
  },
  capabilities: {
    produces: 'soak --capabilities --json',
    schema: z.object({
      schemaVersion: version,
      name: z.literal('keepstate-soak'),
      version: z.string(),
      /** "<verb>" or "<verb> <option>" (commands/capabilities.ts); a pipeline refuses a CLI that lacks one it uses. */
      features: z.array(z.string()),
      exitCodes: z.record(z.string(), num),
    }),
  },
  'target-check': {
    produces: 'soak target check --json',
    schema: z.object({
      schemaVersion: version,
      checks: z.array(
        z.object({
          id: z.string(),
          title: z.string(),
          verdict: z.enum(['pass', 'fail', 'adapter-fault']),
          evidence: z.string(),
        }),
      ),
      effects: z
        .object({ verdict: z.enum(['pass', 'fail', 'not-declared', 'adapter-fault']), evidence: z.string() })
        .describe('whether a target that declares external effects reaches the effect ledger from its sandbox'),
      notChecked: z.array(z.string()),
    }),
  },
  'target-matrix': {
    produces: 'soak target check --matrix --json',
    schema: z.object({
      schemaVersion: version,
      /** The scenario or adapter as given. */
      target: z.string(),
      trials: num,
      /** Trials whose resume the probe examined (the others are in `problems`). */
      measured: num,
      /** How the measured resumes were examined: holder (the same process continued), restarted, unprobed. */
      modes: z.record(z.string(), num),
      classes: z.array(
        z.object({
          class: z.enum(STATE_CLASS_IDS as [StateClass, ...StateClass[]]),
          title: z.string(),
          survives: num,
          lost: num,
          changed: num,
          notApplicable: num,
          /** Resumes where the class applied (all but not-applicable); `interval`: Wilson 95% of survives/n. */
          n: num,
          interval: z.tuple([num, num]).nullable(),
          examples: z.array(z.string()),
        }),
      ),
      problems: z.array(z.object({ trial: num, problem: z.string() })),
    }),
  },
  'image-build': {
    produces: 'soak image build --json',
    schema: loose({
      schemaVersion: version,
      kernel: z.string(),
      initramfs: z.string(),
      hash: z.string(),
      kernelPackage: z.string(),
      cached: z.boolean().optional(),
      buildMs: num,
      /** With --template: the template snapshot built (its files and digests). */
      template: loose({ dir: z.string(), key: z.string() }).optional(),
    }),
  },
} as const;

/** The name of one output (its JSON Schema is schemas/<name>.schema.json). */
export type OutputName = keyof typeof OUTPUT_SCHEMAS;

/** The JSON Schema (draft 2020-12) of output `name`, as checked in under schemas/. */
export function outputJsonSchema(name: OutputName): Record<string, unknown> {
  const { produces, schema } = OUTPUT_SCHEMAS[name];
  return {
    $id: `https://keepstate-soak.invalid/schemas/${name}.v${OUTPUT_SCHEMA_VERSION}.schema.json`,
    title: `keepstate-soak ${produces}, schemaVersion ${OUTPUT_SCHEMA_VERSION}`,
    ...strictJsonSchema(schema, { target: 'draft-2020-12', io: 'output' }),
  };
}
