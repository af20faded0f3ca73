// Validate outputs against the checked-in JSON Schemas (schemas/<name>.schema.json) with ajv in strict mode; and the
// suite-wide check every CLI-running helper calls (test/helpers/cli.ts): a `--json` stdout validates against its verb's
// schema, every summary.json under the run's report folders against summary.schema.json, or the test fails.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OUTPUT_SCHEMAS, type OutputName } from '../../harness/report/output-schemas.js';
import { repoRoot } from './paths.js';

/** ajv as the project's schemas must compile under it: draft 2020-12, strict mode, every error reported. */
export function strictAjv(): Ajv2020 {
  return new Ajv2020({ allErrors: true, strict: true });
}

const validators = new Map<OutputName, (data: unknown) => string[]>();

/** A validator of output `name`: the list of problems ("/path message"), empty when it is valid. */
export function validatorFor(name: OutputName): (data: unknown) => string[] {
  const cached = validators.get(name);
  if (cached) return cached;
  const schema = JSON.parse(readFileSync(path.join(repoRoot, 'schemas', `${name}.schema.json`), 'utf8')) as object;
  const validate = strictAjv().compile(schema);
  const check = (data: unknown): string[] =>
    validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`);
  validators.set(name, check);
  return check;
}

/** The output `soak <args>` prints with --json (its schema's name); null without --json. Throws for an unpublished one. */
export function jsonOutputOf(args: readonly string[]): OutputName | null {
  if (!args.includes('--json')) return null;
  if (args.includes('--capabilities')) return 'capabilities';
  const words = args.filter((a) => !a.startsWith('-'));
  const [verb, sub] = words;
  const name =
    verb === 'target' && args.includes('--matrix')
      ? 'target-matrix'
      : verb === 'store' || verb === 'target' || verb === 'image'
        ? `${verb}-${sub ?? ''}`
        : (verb ?? '');
  if (!Object.hasOwn(OUTPUT_SCHEMAS, name))
    throw new Error(`soak ${args.join(' ')}: a --json output with no published schema (schemas/${name}.schema.json)`);
  return name as OutputName;
}

/** The value of option `flag` in `args` (`--flag v` or `--flag=v`), if given. */
function optionValue(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i >= 0) return args[i + 1];
  return args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
}

/** The folders `soak <args>` run in `cwd` writes dated reports into (`run`: --report-dir or reports/; `report`: --out). */
export function reportDirsOf(args: readonly string[], cwd: string): string[] {
  const verb = args.find((a) => !a.startsWith('-'));
  const dir =
    verb === 'run' && !args.includes('--no-report')
      ? (optionValue(args, '--report-dir') ?? 'reports')
      : verb === 'report'
        ? (optionValue(args, '--out') ?? 'reports')
        : undefined;
  return dir === undefined ? [] : [path.resolve(cwd, dir)];
}

/** Every summary.json in the dated report folders under `dir` (one level down, as reports/ holds them). */
export function summaryFilesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => path.join(dir, d.name, 'summary.json'))
    .filter((f) => existsSync(f));
}

/** Files already found valid, by path and mtime (a re-run of the same folder is not validated twice). */
const checked = new Set<string>();
/** When this test process started: a summary.json older than that (a report left in the checkout) is not its output. */
const STARTED_MS = Date.now();

/** Throw, naming the file and each problem, when a summary.json under `dirs` fails summary.schema.json. */
export function checkSummaries(dirs: readonly string[]): void {
  for (const file of dirs.flatMap(summaryFilesUnder)) {
    const { mtimeMs } = statSync(file);
    const key = `${file}@${mtimeMs}`;
    if (checked.has(key) || mtimeMs < STARTED_MS) continue;
    const problems = validatorFor('summary')(JSON.parse(readFileSync(file, 'utf8')));
    if (problems.length > 0) throw new Error(`${file} fails schemas/summary.schema.json:\n${problems.join('\n')}`);
    checked.add(key);
  }
}

/**
 * Hold what `soak <args>` (run in `cwd`) produced to its published schemas: its --json stdout (when it printed one:
 * an error prints none) and every summary.json in the report folders it writes. Throws on the first mismatch.
 */
export function checkCliOutputs(args: readonly string[], cwd: string, stdout: string): void {
  const name = jsonOutputOf(args);
  if (name !== null && stdout.trim() !== '') {
    let data: unknown;
    try {
      data = JSON.parse(stdout);
    } catch (err) {
      throw new Error(`soak ${args.join(' ')} --json printed what is not JSON: ${stdout.slice(0, 200)}`, {
        cause: err,
      });
    }
    const problems = validatorFor(name)(data);
    if (problems.length > 0)
      throw new Error(`soak ${args.join(' ')}: its --json fails schemas/${name}.schema.json:\n${problems.join('\n')}`);
  }
  checkSummaries(reportDirsOf(args, cwd));
}
