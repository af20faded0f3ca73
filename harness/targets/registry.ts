// Target registry: name -> factory. The host picks one by the scenario's `target` field.
import { type ConfigIssue, ConfigIssuesError, throwIfIssues } from '../core/config-issues.js';
import { ConfigError } from '../core/errors.js';
import type { Target, TargetContext } from './target.js';

export type TargetFactory = (ctx: TargetContext) => Target | Promise<Target>;

interface TargetModule {
  create: TargetFactory;
  /** Validate targetOptions without starting anything; throws a ConfigIssuesError listing every problem. */
  validate: (options: Record<string, unknown>) => void;
}

// Loaded lazily: a host pays only for the target it runs (import time counts as downtime).
const factories: Record<string, () => Promise<TargetModule>> = {
  process: async () => {
    const m = await import('./process/target.js');
    return { create: m.createProcessTarget, validate: m.parseProcessOptions };
  },
  microvm: async () => {
    const [m, o] = await Promise.all([import('./microvm/target.js'), import('./microvm/options.js')]);
    return { create: m.createMicrovmTarget, validate: o.parseMicrovmOptions };
  },
  exec: async () => {
    const m = await import('./exec/target.js');
    return { create: m.createExecTarget, validate: m.parseExecOptions };
  },
};

export const targetNames = Object.keys(factories);

/** Check a target name early (before any process starts). */
export function assertTargetName(name: string, where: string): void {
  if (!(name in factories))
    throw new ConfigError(`${where}: unknown target "${name}" (known targets: ${targetNames.join(', ')})`);
}

export async function createTarget(name: string, ctx: TargetContext): Promise<Target> {
  assertTargetName(name, 'target');
  return (await factories[name]!()).create(ctx);
}

/** The problems of `options` for target `name` (none: []), each by its path from the top of the scenario. */
export async function targetIssues(name: string, options: Record<string, unknown>): Promise<readonly ConfigIssue[]> {
  try {
    (await factories[name]!()).validate(options);
    return [];
  } catch (err) {
    if (err instanceof ConfigIssuesError) return err.issues;
    throw err;
  }
}

/** Check a target name and its options before anything is created; each problem line names `where` (the scenario file). */
export async function validateTarget(name: string, options: Record<string, unknown>, where: string): Promise<void> {
  assertTargetName(name, `${where}: target`);
  throwIfIssues(`scenario ${where}: ${name} target options are invalid`, await targetIssues(name, options), where);
}
