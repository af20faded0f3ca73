// Load gates/NN-name.yaml: zod schema, id = NN, threshold parsed once; every problem in every file reported in one ConfigError.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { readBoundedText } from '../core/bounded-read.js';
import { type FieldPath, issueLine, schemaIssues } from '../core/config-issues.js';
import { ConfigError } from '../core/errors.js';
import { repoRoot } from '../core/repo-root.js';
import { checkStat, METRICS } from './metrics.js';
import { parseThreshold } from './threshold.js';
import type { Gate, Threshold } from './types.js';

const FILE_NAME = /^(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)\.ya?ml$/;

/** The largest minN: a scenario's largest cycle count (a gate that asks for more could never be judged). */
const MAX_MIN_N = 10_000_000;

/** Schema of one gate file. */
export const gateSchema = z
  .object({
    id: z.number().int().min(0).max(99),
    title: z.string().min(1).max(120),
    metric: z.enum(Object.keys(METRICS) as [string, ...string[]]),
    threshold: z.string().min(1),
    minN: z.number().int().min(1).max(MAX_MIN_N),
    description: z.string().default(''),
    /** Per-target overrides: `byTarget: { microvm: { threshold: "p95 < 8000", minN: 5 } }`. */
    byTarget: z
      .record(
        z.string().min(1),
        z
          .object({ threshold: z.string().min(1).optional(), minN: z.number().int().min(1).max(MAX_MIN_N).optional() })
          .strict(),
      )
      .default({}),
  })
  .strict();

/** The repository's gates/ folder. */
export function defaultGatesDir(): string {
  return path.join(repoRoot(), 'gates');
}

/** Validate one gate file's text; pushes `file: field.path: message` lines to `problems`, returns the gate when valid. */
export function parseGate(text: string, file: string, problems: string[]): Gate | null {
  const before = problems.length;
  const problem = (field: FieldPath, message: string): void =>
    void problems.push(issueLine(file, { path: field, message }));
  const m = FILE_NAME.exec(path.basename(file));
  if (m === null)
    problem(['(file name)'], 'must be NN-name.yaml (two digits, a dash, lower-case words joined by dashes)');
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    const line = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    problem([], `not valid YAML${line}: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
  const result = gateSchema.safeParse(raw);
  if (!result.success) for (const issue of schemaIssues(result.error.issues)) problem(issue.path, issue.message);
  // Check id and threshold even when other fields failed, so one pass shows everything.
  const obj = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  if (m !== null && typeof obj.id === 'number' && obj.id !== Number(m[1])) {
    problem(['id'], `is ${obj.id} but the file name says ${m[1]}; make them equal`);
  }
  const readThreshold = (text: unknown, field: FieldPath): Threshold | null => {
    if (typeof text !== 'string') return null;
    const parsed = parseThreshold(text);
    if (typeof parsed === 'string') {
      problem(field, parsed);
      return null;
    }
    const bad = typeof obj.metric === 'string' ? checkStat(obj.metric, parsed.stat) : null;
    if (bad !== null) {
      problem(field, bad);
      return null;
    }
    return parsed;
  };
  const threshold = readThreshold(obj.threshold, ['threshold']);
  if (!result.success || m === null || threshold === null || problems.length > before) return null;
  const g = result.data;
  const byTarget: Gate['byTarget'] = {};
  for (const [target, o] of Object.entries(g.byTarget)) {
    const t = o.threshold === undefined ? threshold : readThreshold(o.threshold, ['byTarget', target, 'threshold']);
    if (t !== null) byTarget[target] = { threshold: t, minN: o.minN ?? g.minN };
  }
  if (problems.length > before) return null;
  return {
    id: g.id,
    name: m[2] ?? '',
    file,
    title: g.title,
    metric: g.metric,
    threshold,
    minN: g.minN,
    description: g.description.trim(),
    byTarget,
  };
}

/** Load and validate every gate file in `dir` (default: the repository's gates/), sorted by id. */
export function loadGates(dir: string = defaultGatesDir()): Gate[] {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
      .sort();
  } catch (err) {
    throw new ConfigError(`cannot read the gates folder ${dir}: ${(err as Error).message}`, { cause: err });
  }
  if (names.length === 0) throw new ConfigError(`${dir}: no gate files (expected NN-name.yaml files)`);
  const problems: string[] = [];
  const gates: Gate[] = [];
  for (const name of names) {
    const file = path.join(dir, name);
    let text: string;
    try {
      text = readBoundedText(file, 'gate file'); // a FIFO, a device or a huge file is refused before it is read
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(err.message);
      continue;
    }
    const gate = parseGate(text, file, problems);
    if (gate !== null) gates.push(gate);
  }
  const seen = new Map<number, string>();
  for (const g of gates) {
    const other = seen.get(g.id);
    if (other !== undefined)
      problems.push(
        issueLine(g.file, { path: ['id'], message: `${g.id} is also used by ${other}; gate numbers must be unique` }),
      );
    seen.set(g.id, g.file);
  }
  if (problems.length > 0) throw new ConfigError(problems.join('\n'));
  return gates.sort((a, b) => a.id - b.id);
}
