// The two soak runs the e2e CLI files (test/e2e/cli-<verb>.test.ts) read, made once per test session whichever file
// asks first: `soak run` of 8 cycles (seed 7) and the --skew-ms 40 negative control (4 cycles, seed 3), at once. The
// first asker takes a lock folder and runs them; any other (another file, in either worker) waits for their outcome.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { cliPath } from './paths.js';
import { soakIn } from './cli.js';

/** What a finished `soak` command left: its exit code and output. */
export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** The shared runs: each command's result, its run folder, and the good run's report folder. */
export interface CliRuns {
  good: CliResult;
  skew: CliResult;
  runDir: string;
  skewDir: string;
  reportDir: string;
  skewReportDir: string;
}

/** How long a waiting file gives the first asker's two soaks (a loaded 2-core machine runs them in a minute or two). */
const WAIT_MS = 15 * 60_000;

let mine: Promise<CliRuns> | undefined;

/** The shared runs (made by the first caller of the test session, awaited by the others). */
export function cliRuns(): Promise<CliRuns> {
  mine ??= share();
  return mine;
}

function sessionDir(): string {
  const provided = inject('cliRunsDir') as string | undefined; // set by cli-runs-setup.ts (vitest.config.ts)
  return provided ?? mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-cli-runs-')); // another config: no sharing
}

async function share(): Promise<CliRuns> {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npx tsc -p . or npm test)`);
  const root = sessionDir();
  const outcome = path.join(root, 'outcome.json');
  const lock = path.join(root, 'lock');
  try {
    mkdirSync(lock);
  } catch {
    return await awaitOutcome(outcome, lock);
  }
  writeFileSync(path.join(lock, 'pid'), String(process.pid));
  let result: CliRuns | { error: string };
  try {
    result = await makeRuns(root);
  } catch (err) {
    result = { error: err instanceof Error ? (err.stack ?? err.message) : String(err) };
  }
  writeFileSync(`${outcome}.tmp`, JSON.stringify(result));
  renameSync(`${outcome}.tmp`, outcome); // whole, or not there
  return fromOutcome(outcome);
}

/** The folder a run made under `runsDir` (the `latest` link aside); throws unless there is exactly one. */
export function runFolder(runsDir: string): string {
  const dirs = readdirSync(runsDir).filter((d) => d !== 'latest');
  if (dirs.length !== 1) throw new Error(`${runsDir} holds ${dirs.length} run folders, expected 1`);
  return path.join(runsDir, dirs[0]!);
}

async function makeRuns(root: string): Promise<CliRuns> {
  const soak = soakIn(() => root, 300_000); // each soak: the bound the e2e files have always given it
  const run = (out: string, ...args: string[]): ReturnType<typeof soak> =>
    soak('run', ...args, '--boot-samples', '0', '--out', `runs${out}`, '--report-dir', `reports${out}`);
  const [good, skew] = await Promise.all([
    run('', '--cycles', '8', '--seed', '7'),
    run('-skew', '--cycles', '4', '--seed', '3', '--skew-ms', '40'),
  ]);
  const report = (dir: string, r: typeof good): string => {
    const reports = readdirSync(path.join(root, dir)).filter((d) => d !== 'index.html');
    if (reports.length !== 1) throw new Error(`${dir}: ${reports.length} reports, expected 1: ${r.stderr}`);
    return path.join(root, dir, reports[0]!);
  };
  const plain = (r: typeof good): CliResult => ({
    exitCode: r.exitCode,
    stdout: r.stdout,
    stderr: r.stderr,
  });
  return {
    good: plain(good),
    skew: plain(skew),
    runDir: runFolder(path.join(root, 'runs')),
    skewDir: runFolder(path.join(root, 'runs-skew')),
    reportDir: report('reports', good),
    skewReportDir: report('reports-skew', skew),
  };
}

/** Wait for the first asker's outcome file; fail at once if that process is gone without writing it. */
async function awaitOutcome(outcome: string, lock: string): Promise<CliRuns> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(outcome)) return fromOutcome(outcome);
    const pid = Number(existsSync(path.join(lock, 'pid')) ? readFileSync(path.join(lock, 'pid'), 'utf8') : NaN);
    if (Number.isInteger(pid) && !existsSync(`/proc/${pid}`) && !existsSync(outcome))
      throw new Error(`the process ${pid} making the shared CLI runs died without an outcome`);
    if (Date.now() > deadline) throw new Error(`no shared CLI runs in ${outcome} after ${WAIT_MS / 60_000} min`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function fromOutcome(file: string): CliRuns {
  const r = JSON.parse(readFileSync(file, 'utf8')) as CliRuns | { error: string };
  if ('error' in r) throw new Error(`making the shared CLI runs failed: ${r.error}`);
  return r;
}
