// Scenario files (scenarios/*.yaml): schema, defaults, loading with every problem reported at once.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { readBoundedText } from '../core/bounded-read.js';
import { type ConfigIssue, ConfigIssuesError, schemaIssues } from '../core/config-issues.js';
import { parsePromises } from '../check/promises.js';
import { ConfigError } from '../core/errors.js';
import { repoRoot } from '../core/repo-root.js';
import { durationMs, durationS, HOUR_MS, msRange } from './durations.js';
import { MAX_SESSIONS, sessionsIssue } from './sessions.js';

/** The bound of a relative weight (a fault's, a kill phase's): enough for any ratio, far from overflowing a sum. */
const MAX_WEIGHT = 1_000_000;
const range = msRange(HOUR_MS);

/** The default bound on a checkpoint (scenario checkpoint.timeoutMs): far above the slowest checkpoint seen on a loaded 2-core machine (microvm under TCG; bench/README.md). */
export const CHECKPOINT_TIMEOUT_MS = 30_000;

/** Faults that meet every session at one instant (nemesis/crash-barrier.ts). */
export const MEETING_FAULTS: readonly string[] = ['host-crash', 'checkpoint-storm', 'memory-pressure'];
/** The fault kinds a scenario may list (README "Faults beyond SIGKILL"), sigkill the default; each is delivered by its file in nemesis/ (nemesis/faults.ts). */
// prettier-ignore
export const FAULT_KINDS = ['sigkill', 'power-loss', 'enospc', 'eio', 'freeze', 'host-crash', 'checkpoint-storm', 'memory-pressure'] as const;
/** One of FAULT_KINDS. */
export type FaultKind = (typeof FAULT_KINDS)[number];

const faultSchema = z
  .object({
    kind: z.enum(FAULT_KINDS),
    /** Relative weight of this fault among the listed ones. */
    weight: z.number().positive().max(MAX_WEIGHT).default(1),
    /** freeze only: how long the host group stays SIGSTOPped (default FREEZE_DEFAULT_MS in nemesis/plan.ts). */
    durationMs: durationMs(HOUR_MS, { int: true }).optional(),
  })
  .strict()
  .refine((f) => f.durationMs === undefined || f.kind === 'freeze', {
    error: 'durationMs applies to kind: freeze only',
    path: ['durationMs'],
  });
/** One entry of a scenario's `faults`. */
export type FaultEntry = z.infer<typeof faultSchema>;

export const scenarioSchema = z
  .object({
    name: z.string().min(1).max(120),
    description: z.string().default(''),
    target: z.string().min(1).default('process'),
    cycles: z.number().int().positive().max(10_000_000).default(30),
    seed: z
      .number()
      .int()
      .nonnegative()
      .max(2 ** 32 - 1)
      .default(1),
    /**
     * continuous: one session lives across cycles (each resume carries on). fresh: every cycle is boot -> work ->
     * checkpoint(s) -> kill -> resume -> verify -> destroy, on a newly booted session.
     */
    session: z.enum(['continuous', 'fresh']).default('continuous'),
    /**
     * Boot samples for gate 1 (boot time): before its cycles the runner boots this many throwaway fresh sessions (each
     * to its first full, verified heartbeat, then destroyed), one raw boot time each; not cycles, not on the kill plan.
     * A p95 needs n >= 59 boots. Sharded runs split them as they split cycles.
     */
    bootSamples: z.number().int().nonnegative().max(100_000).default(0),
    /**
     * Warm standby: keep a session host started ahead of need (modules loaded, store open, target prepared; two when
     * the kill plan kills during restores) and hand it the restore after a kill; the next standby starts after the
     * resume was judged. false: a cold host per resume. pool: a host from a pool of pre-started ones (started ahead as
     * a standby is, its store reads warmed on bytes of its own) that reads nothing of the session before the kill: at
     * the hand-off it resolves the newest checkpoint and reads every part from the store, as a cold host does.
     */
    standby: z.union([z.boolean(), z.literal('pool')]).default(false),
    /** Sessions run at once on one host (process target), each its own kill plan, one shared store (docs: sessions). */
    sessions: z.number().int().min(1).max(MAX_SESSIONS).default(1),
    /** Stop cleanly (status "budget") once this much wall time has passed; 0 = no budget. */
    budgetS: durationS(24 * 86_400).default(0),
    /**
     * Stop after the cycle at which the verdict is decided by the gates' anytime-valid decisions (gates/anytime.ts):
     * every gate decided, or one failed. `cycles` and budgetS are then the budget; a gate still undecided when it runs
     * out is inconclusive. The run's gates are judged on their anytime decisions (docs/anytime.md).
     */
    untilDecided: z.boolean().optional(),
    /** Workload: one step every stepMs. */
    stepMs: durationMs(10_000).default(5),
    checkpoint: z
      .object({
        everyMs: durationMs(HOUR_MS).default(100),
        /**
         * Longest a checkpoint may pause the session, and take from its begin to its commit, while the session host
         * answers: past it the checkpoint failed (violation checkpoint-stuck; README "Timeouts").
         */
        timeoutMs: durationMs(HOUR_MS, { int: true }).default(CHECKPOINT_TIMEOUT_MS),
      })
      .strict()
      .default({ everyMs: 100, timeoutMs: CHECKPOINT_TIMEOUT_MS }),
    kill: z
      .object({
        /** Relative weights of where kills are aimed. */
        phases: z
          .object({
            work: z.number().nonnegative().max(MAX_WEIGHT).default(1),
            checkpoint: z.number().nonnegative().max(MAX_WEIGHT).default(0),
            restore: z.number().nonnegative().max(MAX_WEIGHT).default(0),
          })
          .strict()
          .refine((p) => p.work + p.checkpoint + p.restore > 0, { error: 'at least one phase weight must be > 0' })
          .default({ work: 1, checkpoint: 0, restore: 0 }),
        /** Kill this long after the session became ready (work phase), uniform in [min, max] ms. */
        workDelayMs: range.default([150, 500]),
        /** Kill this long after a checkpoint write began (checkpoint phase). */
        checkpointDelayMs: range.default([0, 3]),
        /** Kill this long after a restore began (restore phase). */
        restoreDelayMs: range.default([0, 30]),
      })
      .strict()
      .default({
        phases: { work: 1, checkpoint: 0, restore: 0 },
        workDelayMs: [150, 500],
        checkpointDelayMs: [0, 3],
        restoreDelayMs: [0, 30],
      }),
    /**
     * Which fault each cycle delivers, by weight (nemesis/plan.ts planFault); empty = SIGKILL only. With power-loss,
     * enospc or eio the run's store lives on the lazy FUSE file system (docs/lazyfs.md); freeze is SIGSTOP + SIGCONT;
     * host-crash kills the warm standbys with the session.
     */
    faults: z.array(faultSchema).default([]),
    /** Give up on a resume (outcome fail) after this long. */
    resumeTimeoutMs: durationMs(HOUR_MS).default(30_000),
    /**
     * Longest wait for any other message of a host (a checkpoint to begin) and for a killed host to be gone; a host
     * that misses it is hung: killed with its group, the cycle indeterminate (cause host-hung).
     */
    hostTimeoutMs: durationMs(HOUR_MS).default(10_000),
    /** Negative control: capture filesystem, then memory this much later. */
    skewMs: durationMs(10_000, { positive: false }).default(0),
    /** This run is a negative control: it passes only if the checker finds violations. */
    negativeControl: z.boolean().default(false),
    /** Fault injection for A/B tests: sleep this long inside every restore. */
    injectRestoreDelayMs: durationMs(600_000, { positive: false }).default(0),
    /**
     * External effects (issue 34, docs/effects.md): at seeded steps (about one in everySteps) the agent calls the run's
     * effect ledger once per key discipline (step-derived key, random key, no key); the runner counts after each
     * resume what the world saw twice, saw ahead of the restored state, or never saw. Process target only so far.
     * clones: after about one resume in `every` (seeded), a second session restores the session's newest checkpoint
     * while it runs on; both emit for `effectSteps` effect steps, then the clone is stopped and its duplicates counted.
     */
    effects: z
      .object({
        everySteps: z.number().int().min(1).max(1_000_000),
        clones: z
          .object({
            every: z.number().int().min(1).max(1_000_000),
            effectSteps: z.number().int().min(1).max(1000).default(5),
          })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    /** Run the guest-state probe and journal what it sees after each resume (docs/what-survives.md); on with promises. */
    probe: z.boolean().optional(),
    /** The classes of guest state the runtime documents as kept across a resume (check/promises.ts): gate 10. */
    promises: z.array(z.unknown()).optional(),
    /** Options passed to the target as they are; the target validates them. */
    targetOptions: z.record(z.string(), z.unknown()).default({}),
    /** target: exec: the adapter program (docs/target-protocol.md), relative to the scenario's folder or the repo root. */
    adapter: z.string().min(1).optional(),
    /** target: exec: options handed to the adapter's `describe` as they are; the adapter validates them. */
    adapterOptions: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioOverrides = Partial<
  Pick<
    Scenario,
    | 'target'
    | 'cycles'
    | 'seed'
    | 'skewMs'
    | 'injectRestoreDelayMs'
    | 'budgetS'
    | 'bootSamples'
    | 'untilDecided'
    | 'sessions'
  >
>;

/** The command-line flag that overrides scenario field `key` (budgetS: --budget-s). */
export function overrideFlag(key: string): string {
  return `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
}

/** Scenario schema problems as config issues; a field in `fromFlags` came from its flag and is named so. */
function scenarioIssues(error: z.ZodError, fromFlags: ReadonlySet<string>): ConfigIssue[] {
  return schemaIssues(error.issues, [], 'unknown field (check the spelling; see README "Scenario files")').map((i) => {
    const key = String(i.path[0] ?? '');
    return i.path.length === 1 && fromFlags.has(key) ? { ...i, flag: overrideFlag(key) } : i;
  });
}

/** Resolve `--scenario`: a path to a file, or a name in scenarios/. */
export function resolveScenarioPath(nameOrPath: string): string {
  const looksLikePath = nameOrPath.includes('/') || nameOrPath.endsWith('.yaml') || nameOrPath.endsWith('.yml');
  if (looksLikePath) {
    const p = path.resolve(nameOrPath);
    if (!existsSync(p)) throw new ConfigError(`scenario file ${p} does not exist`);
    return p;
  }
  const p = path.join(repoRoot(), 'scenarios', `${nameOrPath}.yaml`);
  if (!existsSync(p)) {
    throw new ConfigError(
      `no scenario named "${nameOrPath}": ${p} does not exist (pass a name from scenarios/ or a path to a .yaml file)`,
    );
  }
  return p;
}

/** Parse and validate scenario text; `file` is used in messages only. */
export function parseScenario(text: string, file: string, overrides: ScenarioOverrides = {}): Scenario {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new ConfigError(`scenario ${file}${where} is not valid YAML: ${(err as Error).message.split('\n')[0]}`, {
      cause: err,
    });
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(`scenario ${file} must be a YAML mapping with at least a "name" field`);
  }
  const merged: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const fromFlags = new Set<string>();
  for (const [key, value] of Object.entries(overrides) as [string, unknown][])
    if (value !== undefined) {
      merged[key] = value;
      fromFlags.add(key);
    }
  const result = scenarioSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigIssuesError(`scenario ${file} is invalid`, scenarioIssues(result.error, fromFlags), file);
  }
  const sessionsProblem = sessionsIssue(result.data);
  if (sessionsProblem !== undefined) throw new ConfigError(`scenario ${file}: ${sessionsProblem}`);
  const effectsIssue = effectsTargetIssue(result.data);
  if (effectsIssue !== undefined) throw new ConfigIssuesError(`scenario ${file} is invalid`, [effectsIssue], file);
  const promises = result.data.promises === undefined ? [] : parsePromises(result.data.promises);
  if (typeof promises === 'string') throw new ConfigError(`scenario ${file}: ${promises}`);
  const probed = result.data.probe ?? promises.length > 0;
  if (probed && !['process', 'exec', 'microvm'].includes(result.data.target))
    throw new ConfigError(
      `scenario ${file}: probe/promises: target "${result.data.target}" cannot run the guest-state probe yet (process, exec, microvm)`,
    );
  if (probed && result.data.target === 'microvm' && result.data.targetOptions.fresh === 'template')
    throw new ConfigError(
      `scenario ${file}: probe/promises: the microvm target probes only with targetOptions.fresh: cold`,
    );
  return withAdapter(result.data, file);
}

/** Effects on a target that cannot emit them: the field and why (the micro-VM's template boots cannot: options.ts). */
function effectsTargetIssue(s: Scenario): { path: string[]; message: string } | undefined {
  if (s.effects === undefined) return undefined;
  if (!['process', 'exec', 'microvm'].includes(s.target))
    return {
      path: ['effects'],
      message: `only targets "process", "microvm" and "exec" emit effects, not "${s.target}"`,
    };
  if (s.target === 'microvm' && s.targetOptions.fresh === 'template')
    return { path: ['effects'], message: 'the microvm target emits effects only with targetOptions.fresh: cold' };
  return undefined;
}

/** target: exec: fold `adapter` (resolved to a path) and `adapterOptions` into targetOptions, where the host reads them. */
function withAdapter(s: Scenario, file: string): Scenario {
  if (s.target !== 'exec') return s;
  if (s.adapter === undefined)
    throw new ConfigIssuesError(
      `scenario ${file} is invalid`,
      [{ path: ['adapter'], message: 'target "exec" needs an adapter path' }],
      file,
    );
  const near = path.resolve(path.dirname(file), s.adapter);
  const adapter = existsSync(near) ? near : path.resolve(repoRoot(), s.adapter);
  return { ...s, targetOptions: { ...s.targetOptions, adapter, adapterOptions: s.adapterOptions ?? {} } };
}

/** Load a scenario by name or path, applying command-line overrides. */
export function loadScenario(
  nameOrPath: string,
  overrides: ScenarioOverrides = {},
): { scenario: Scenario; file: string } {
  const file = resolveScenarioPath(nameOrPath);
  return { scenario: parseScenario(readBoundedText(file, 'scenario'), file, overrides), file };
}
