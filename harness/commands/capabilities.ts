// `soak --capabilities [--json]`: what this CLI can do, for the pipelines that drive it. deploy/nightly/nightly.sh asks
// it once and refuses to start with a CLI that lacks a feature it uses (instead of grepping help text and falling
// back). Answered on the fast path (no yargs, no verb loaded); schemas/capabilities.schema.json is its --json shape.
import { EXIT } from '../core/errors.js';
import { escapedJson } from '../core/visible.js';

/** The version of the --json object; bump it on an incompatible change. */
export const CAPABILITIES_SCHEMA_VERSION = 1;

/**
 * Each feature a pipeline may ask for, as "<verb>" or "<verb> <option>" (test/commands/capabilities.test.ts holds
 * every one to the verb's real options). Add one here when a pipeline starts relying on it.
 */
export const FEATURES = [
  'run --shard',
  'run --seed-from',
  'run --no-judge',
  'run --no-report',
  'run --json',
  'run --boot-samples',
  'merge',
  'merge --json',
  'report --baseline',
  'report --junit',
  'report --summary-md',
  'report --json',
  'gates --junit',
  'gates --summary-md',
  'gates --json',
] as const;

/** One feature's name. */
export type Feature = (typeof FEATURES)[number];

/** The --json answer. */
export interface Capabilities {
  schemaVersion: typeof CAPABILITIES_SCHEMA_VERSION;
  name: 'keepstate-soak';
  version: string;
  features: Feature[];
  /** The documented exit codes by meaning (README "Exit codes"). */
  exitCodes: Record<keyof typeof EXIT, number>;
}

/** What this CLI can do; `version` is the package's (commands/fast-path.ts reads it). */
export function capabilities(version: string): Capabilities {
  return {
    schemaVersion: CAPABILITIES_SCHEMA_VERSION,
    name: 'keepstate-soak',
    version,
    features: [...FEATURES],
    exitCodes: { ...EXIT },
  };
}

/** The text `soak --capabilities` prints: JSON with `json`, else one feature a line under the version. */
export function capabilitiesText(version: string, json: boolean): string {
  const c = capabilities(version);
  if (json) return `${escapedJson(c, 2)}\n`;
  return `keepstate-soak ${c.version}\n${c.features.map((f) => `  ${f}`).join('\n')}\n`;
}
