// Target registry: name -> factory. The host picks one by the scenario's `target` field.
import { ConfigError } from '../errors.js';
import type { Target, TargetContext } from './target.js';

export type TargetFactory = (ctx: TargetContext) => Target | Promise<Target>;

const factories: Record<string, () => Promise<TargetFactory>> = {
  process: async () => (await import('./process.js')).createProcessTarget,
  microvm: async () => (await import('./microvm.js')).createMicrovmTarget,
};

export const targetNames = Object.keys(factories);

/** Check a target name early (before any process starts). */
export function assertTargetName(name: string, where: string): void {
  if (!(name in factories)) throw new ConfigError(`${where}: unknown target "${name}" (known targets: ${targetNames.join(', ')})`);
}

export async function createTarget(name: string, ctx: TargetContext): Promise<Target> {
  assertTargetName(name, 'target');
  const factory = await factories[name]!();
  return factory(ctx);
}
