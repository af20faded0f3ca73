// Running the built `soak` CLI from a test: in a given folder, never rejecting, with no terminal and CI-style output;
// and `soak run --json` on a scenario written for the test, with the run's journal read back. Every run is held to
// the published schemas (helpers/schemas.ts): its --json output and the summary.json files it wrote, or the test fails.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execaNode, type Result } from 'execa';
import type { JournalEvent } from '../../harness/journal/events.js';
import { cliPath } from './paths.js';
import { checkCliOutputs } from './schemas.js';

/** How to run one `soak` in a test. */
export interface SoakOptions {
  cwd?: string;
  timeoutMs: number;
  env?: Record<string, string>;
}

/** `soak ...args` in `cwd`, CI-style (stdin closed, CI=1), never rejecting. */
function execSoak(args: readonly string[], cwd: string, opts: SoakOptions) {
  const env = { CI: '1', ...opts.env };
  return execaNode(cliPath, [...args], { cwd, reject: false, timeout: opts.timeoutMs, stdin: 'ignore', env });
}

/** What a `soak` run in a test left: exit code, stdout and stderr as strings. */
export type SoakResult = Awaited<ReturnType<typeof execSoak>>;

/** `soak ...args`, CI-style (stdin closed, CI=1), never rejecting; its --json and summary.json files validated. */
export async function runSoak(args: readonly string[], opts: SoakOptions): Promise<SoakResult> {
  const cwd = opts.cwd ?? process.cwd();
  const r = await execSoak(args, cwd, opts);
  checkCliOutputs(args, cwd, r.stdout);
  return r;
}

/** A `soak ...args` runner whose working folder is read at each call (tests make it in beforeAll). */
export function soakIn(cwd: () => string, timeoutMs: number): (...args: string[]) => Promise<SoakResult> {
  return (...args) => runSoak(args, { cwd: cwd(), timeoutMs });
}

/** Exit code, stdout and stderr of a finished CLI run, for assertion messages. */
export function describeResult(r: Pick<Result, 'exitCode' | 'stdout' | 'stderr'>): string {
  return `exit ${r.exitCode}\n--- stdout\n${String(r.stdout)}\n--- stderr\n${String(r.stderr)}`;
}

/** The non-empty lines of a command's output. */
export function outputLines(text: unknown): string[] {
  return String(text)
    .split('\n')
    .filter((l) => l.length > 0);
}

/** A regular expression's source matching `text` literally. */
export function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Write scenario `name` (its `name:` line, then `lines`) to `dir`/`name`.yaml; returns the file. */
export function writeScenario(dir: string, name: string, lines: readonly string[]): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, [`name: ${name}`, ...lines].join('\n'));
  return file;
}

/** What a `soak run --json` left: the CLI's result, its run's journal events, and its parsed --json output. */
export interface SoakRunJson<J> {
  r: Result;
  events: JournalEvent[];
  json: J;
}

/** `soak run` on `scenario` into `out` (reports in `out`/reports) with --json, CI-style, never rejecting. */
export async function soakRunJson<J>(
  scenario: string,
  out: string,
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<SoakRunJson<J>> {
  const args = ['run', '--scenario', scenario, '--out', out, '--report-dir', path.join(out, 'reports'), '--json'];
  const r = await runSoak(args, { timeoutMs, env });
  const runDir = path.join(
    out,
    readdirSync(out).find((d) => d !== 'latest' && d !== 'reports')!,
  );
  const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JournalEvent);
  return { r, events, json: JSON.parse(r.stdout) as J };
}
