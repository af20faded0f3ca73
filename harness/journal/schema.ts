// The journal's one home for what a valid line holds: a zod schema per event type, built from a few named value rules
// (number-rules.ts, the closed string sets) that the analysis fast path also checks on the fields it decodes from
// bytes, and compile-time proof that each schema infers exactly its event type in events.ts, so the two cannot drift.
import { z } from 'zod';
import type { ViolationCode } from '../check/heartbeat.js';
import type { Environment } from '../core/environment.js';
import { FAULT_KINDS, scenarioSchema } from '../scenario/scenario.js';
import type { EventOf, EventType } from './codec.js';
import { effectsEventSchema } from './effects-schema.js';
import { stormEventSchema } from './storm-schema.js';
import { guestStateEventSchema } from './guest-state-schema.js';
import { memoryPressureEventSchema } from './memory-pressure-schema.js';
import { CAUSE_CODES, JOURNAL_SCHEMA_VERSION, type KillPhase, type Outcome } from './events.js';
import { COUNT, CYCLE_ID, DURATION_MS, PERCENT, POSITIVE, SESSION_INDEX, STEP_DELTA } from './number-rules.js';
import { finite, flag, number, numberOrNull, oneOf, show, text } from './schema-values.js';

/** The closed string sets, in the order the fast path tries them (most frequent first). */
export const KILL_PHASES = ['work', 'checkpoint', 'restore'] as const satisfies readonly KillPhase[];
export const OUTCOMES = ['ok', 'fail', 'indeterminate'] as const satisfies readonly Outcome[];
export const HOST_MODES = ['boot', 'restore', 'standby', 'pool', 'clone'] as const;
export const RUN_STATUSES = ['complete', 'interrupted', 'budget', 'aborted'] as const;
export const VIOLATION_CODES = [
  'not-full',
  'nonce',
  'inconsistent',
  'digest',
  'regressed',
  'ahead',
  'not-latest',
  'no-resume',
  'lost-acknowledged-checkpoint',
  'store-damaged',
  'nonce-reused',
  'work-failed',
  'adapter-fault',
  'session-hung',
  'checkpoint-stuck',
] as const satisfies readonly ViolationCode[];

const facts = z.record(z.string(), z.union([z.string(), finite, z.boolean()]));

const base = {
  schemaVersion: z.literal(JOURNAL_SCHEMA_VERSION),
  t: number(DURATION_MS),
  session: number(SESSION_INDEX).optional(),
};
const count = number(COUNT);
const part = z.object({ step: count, digest: text });
const violation = z.object({ code: oneOf(VIOLATION_CODES), message: text });
const environment = z.object({
  os: text,
  arch: text,
  cpuModel: text,
  cores: number(COUNT),
  memoryGiB: number(DURATION_MS),
  kernel: text,
  kernelBuild: text.optional(),
  virtualization: text.optional(),
  node: text,
  harnessVersion: text,
  gitCommit: text,
  target: facts,
});
const storeTally = z.object({
  checkpoints: number(COUNT),
  logicalBytes: number(COUNT),
  storedBytes: number(COUNT),
  apartBytes: number(COUNT).optional(),
});
const procs = z.array(z.object({ pid: number(COUNT), group: z.boolean(), startTime: text }));
/** Each event type's schema. Unknown fields are tolerated (and stripped from what zod returns, not from the event). */
export const EVENT_SCHEMAS = {
  'run-start': z.object({
    ...base,
    type: z.literal('run-start'),
    runId: text,
    startedAt: text,
    scenario: scenarioSchema,
    environment,
    shard: z.object({ index: number(COUNT), count: number(POSITIVE) }).optional(),
    mergedFrom: z.array(text).optional(),
    sources: z
      .array(
        z.object({
          runId: text,
          machine: text,
          seed: number(COUNT),
          shard: z.object({ index: number(COUNT), count: number(POSITIVE) }).optional(),
          plannedCycles: number(COUNT),
          cycles: number(COUNT),
          firstCycle: numberOrNull(COUNT),
          lastCycle: numberOrNull(COUNT),
          status: oneOf([...RUN_STATUSES, 'unknown'] as const),
          store: storeTally.optional(),
        }),
      )
      .optional(),
    seedKey: text.optional(),
    manualKills: z.literal(true).optional(),
    forcedOverlap: z.array(text).optional(),
  }),
  'run-resume': z.object({
    ...base,
    type: z.literal('run-resume'),
    killedGroups: z.array(number(COUNT)),
    remaining: number(COUNT),
    killedDeclared: z.array(number(COUNT)).optional(),
  }),
  'target-info': z.object({ ...base, type: z.literal('target-info'), cycle: number(CYCLE_ID), info: facts }),
  'kill-list': z.object({
    ...base,
    type: z.literal('kill-list'),
    cycle: number(CYCLE_ID),
    host: number(COUNT),
    hostStartTime: text.optional(),
    procs,
  }),
  'host-start': z.object({
    ...base,
    type: z.literal('host-start'),
    cycle: number(CYCLE_ID),
    pid: number(COUNT),
    mode: oneOf(HOST_MODES),
  }),
  boot: z.object({
    ...base,
    type: z.literal('boot'),
    cycle: number(CYCLE_ID),
    bootMs: number(DURATION_MS),
    nonce: text,
    sample: number(CYCLE_ID).optional(),
  }),
  checkpoint: z.object({
    ...base,
    type: z.literal('checkpoint'),
    cycle: number(CYCLE_ID),
    seq: number(COUNT),
    step: number(COUNT),
    pauseMs: number(DURATION_MS),
    writeMs: number(DURATION_MS),
    logicalBytes: number(COUNT),
    storedBytes: number(COUNT),
    chunks: number(COUNT),
    newChunks: number(COUNT),
    meta: z.record(z.string(), z.union([finite, z.string()])),
  }),
  'cycle-start': z.object({
    ...base,
    type: z.literal('cycle-start'),
    cycle: number(CYCLE_ID),
    phase: oneOf(KILL_PHASES),
  }),
  kill: z.object({
    ...base,
    type: z.literal('kill'),
    cycle: number(CYCLE_ID),
    phase: oneOf(KILL_PHASES),
    observedPhase: oneOf(KILL_PHASES),
    atStep: number(COUNT),
    nonce: text,
    lastCommittedSeq: number(COUNT),
    lastCommittedStep: number(COUNT),
    inFlightSeq: numberOrNull(COUNT),
  }),
  fault: z.object({
    ...base,
    type: z.literal('fault'),
    cycle: number(CYCLE_ID),
    kind: oneOf(FAULT_KINDS),
    acknowledgedSeq: number(COUNT),
    acknowledgedStep: number(COUNT),
    durationMs: number(DURATION_MS).optional(),
  }),
  'host-crash': z.object({
    ...base,
    type: z.literal('host-crash'),
    cycle: number(CYCLE_ID),
    sessions: number(COUNT),
    killed: number(COUNT),
    spreadMs: number(DURATION_MS),
    back: number(COUNT),
    lastBackMs: numberOrNull(DURATION_MS),
  }),
  'checkpoint-storm': stormEventSchema(base),
  'memory-pressure': memoryPressureEventSchema(base),
  restore: z.object({
    ...base,
    type: z.literal('restore'),
    cycle: number(CYCLE_ID),
    seq: number(COUNT),
    step: number(COUNT),
    restoreMs: number(DURATION_MS),
    source: text.optional(),
  }),
  observation: z.object({
    ...base,
    type: z.literal('observation'),
    cycle: number(CYCLE_ID),
    restoredSeq: number(COUNT),
    restoredStep: number(COUNT),
    killStep: number(COUNT),
    nonce: text,
    latestCompleteSeq: numberOrNull(COUNT),
    step: number(COUNT),
    heartbeatNonce: text,
    full: flag,
    fs: part.optional(),
    mem: part.optional(),
    tool: part.optional(),
    acknowledgedSeq: number(COUNT).optional(),
    ran: z.object({ ms: number(DURATION_MS), stepMs: number(DURATION_MS) }).optional(),
    work: z.object({ iteration: count, failures: count, served: count, last: text }).strict().optional(),
    workBefore: count.optional(),
  }),
  cycle: z.object({
    ...base,
    type: z.literal('cycle'),
    cycle: number(CYCLE_ID),
    phase: oneOf(KILL_PHASES),
    observedPhase: oneOf(KILL_PHASES),
    outcome: oneOf(OUTCOMES),
    downtimeMs: numberOrNull(DURATION_MS),
    killStep: number(COUNT),
    restoredSeq: numberOrNull(COUNT),
    restoredStep: numberOrNull(COUNT),
    lostSteps: numberOrNull(STEP_DELTA),
    restoreKills: number(COUNT),
    violations: z.array(violation, { error: (iss) => `expected a list of violations, got ${show(iss.input)}` }),
    cause: z
      .object({ code: oneOf(CAUSE_CODES), message: text })
      .nullable()
      .optional(),
  }),
  'run-end': z.object({
    ...base,
    type: z.literal('run-end'),
    status: oneOf(RUN_STATUSES),
    cycles: number(COUNT),
    reason: text.optional(),
    store: storeTally.optional(),
    decided: z.object({ cycle: number(COUNT), by: text }).optional(),
  }),
  'machine-load': z.object({
    ...base,
    type: z.literal('machine-load'),
    cycle: number(COUNT),
    windowMs: number(DURATION_MS),
    load1: number(DURATION_MS),
    stealPct: number(PERCENT),
    busyPct: number(PERCENT),
    harnessPct: number(PERCENT),
    otherCpuPct: number(PERCENT),
  }),
  effects: effectsEventSchema(base, number(COUNT), numberOrNull(COUNT)),
  'guest-state': guestStateEventSchema(base, oneOf, number(COUNT), text, finite),
} as const;

/** True when A and B are assignable both ways: same fields, same optionality, same value types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Compile-time proof that every schema infers its event type exactly (a drift on either side does not compile). */
export const SCHEMAS_MATCH_EVENTS: { [T in EventType]: Same<z.infer<(typeof EVENT_SCHEMAS)[T]>, EventOf<T>> } & {
  environment: Same<z.infer<typeof environment>, Environment>;
} = {
  'run-start': true,
  'run-resume': true,
  'target-info': true,
  'host-start': true,
  'kill-list': true,
  boot: true,
  checkpoint: true,
  'cycle-start': true,
  kill: true,
  fault: true,
  'host-crash': true,
  'checkpoint-storm': true,
  'memory-pressure': true,
  restore: true,
  observation: true,
  cycle: true,
  'run-end': true,
  'machine-load': true,
  effects: true,
  'guest-state': true,
  environment: true,
};

const SCHEMA_OF: Partial<Record<string, z.ZodType>> = EVENT_SCHEMAS;

/**
 * What is wrong with a parsed journal line that has a string `type`, as `type.field: problem` (every problem, joined
 * by "; "), or null when it is a valid event.
 */
export function eventProblems(line: { type: string }): string | null {
  const schema = SCHEMA_OF[line.type];
  if (schema === undefined)
    return `type: expected one of ${Object.keys(EVENT_SCHEMAS).join(', ')}, got ${show(line.type)}`;
  const result = schema.safeParse(line);
  if (result.success) return null;
  return result.error.issues.map((i) => `${[line.type, ...i.path.map(String)].join('.')}: ${i.message}`).join('; ');
}
