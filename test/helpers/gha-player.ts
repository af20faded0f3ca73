// Plays a GitHub Actions workflow on this machine as a runner would, to prove it works as written: each job (each
// matrix entry) in its own fresh clone of a snapshot of the worktree, its `run:` steps in order through
// `bash --noprofile --norc -eo pipefail` with the env the workflow sets and GITHUB_OUTPUT / GITHUB_ENV /
// GITHUB_STEP_SUMMARY files; jobs in `needs` order with their `if:`. `uses:` steps are not run: actions/checkout is the
// clone itself, actions/setup-node is this machine's Node, the artifact actions are stood in for by folders
// (gha-artifacts.ts), and any other action is skipped; each such step says so in its `note`.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { downloadArtifacts, uploadArtifact } from './gha-artifacts.js';
import { condition, expand, type ExprContext } from './gha-expr.js';
import { nativePrebuildEnv } from './native-prebuilds.js';

export interface GhaStep {
  name?: string;
  id?: string;
  run?: string;
  uses?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
  if?: string;
}
export interface GhaJob {
  needs?: string | string[];
  if?: string;
  env?: Record<string, unknown>;
  outputs?: Record<string, string>;
  strategy?: { matrix?: Record<string, unknown[]> };
  'timeout-minutes'?: number;
  steps: GhaStep[];
}
export interface Workflow {
  env?: Record<string, unknown>;
  jobs: Record<string, GhaJob>;
}

export interface PlayOptions {
  workflow: Workflow;
  /** A scratch folder for the play: jobs/, artifacts/, scripts/. */
  root: string;
  /** The repository each job clones (snapshotOrigin). */
  origin: string;
  /** workflow_dispatch inputs. */
  inputs?: Record<string, string>;
  /** Values over the workflow-level env (a shorter night: CYCLES, SHARDS...). */
  env?: Record<string, string>;
  /** Extra env for one job run (e.g. a fault planted in one shard). */
  jobEnv?: (job: string, matrix: Record<string, unknown>) => Record<string, string>;
  /** Which matrix entries to play (default: all). */
  matrix?: (job: string, entry: Record<string, unknown>) => boolean;
  /** Bound on each step (the job's timeout-minutes when smaller). */
  stepTimeoutMs: number;
}

export interface StepRun {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  /** Why a `uses:` step was not run as such (or how it was stood in for). */
  note?: string;
  stdout: string;
  stderr: string;
}
export interface JobRun {
  job: string;
  matrix: Record<string, unknown>;
  result: 'success' | 'failure' | 'skipped';
  workspace: string;
  steps: StepRun[];
  outputs: Record<string, string>;
  /** What its steps appended to GITHUB_STEP_SUMMARY. */
  summary: string;
}

/** A commit of the worktree as it is (tracked and untracked, not ignored; HEAD's tree when clean) in a bare repo. */
export async function snapshotOrigin(worktree: string, root: string): Promise<string> {
  const git = (args: string[], env: Record<string, string> = {}) =>
    execa('git', args, { cwd: worktree, env, timeout: 120_000 }).then((r) => r.stdout.trim());
  const index = path.join(root, 'snapshot.index');
  copyFileSync(await git(['rev-parse', '--path-format=absolute', '--git-path', 'index']), index);
  await git(['add', '-A'], { GIT_INDEX_FILE: index });
  const tree = await git(['write-tree'], { GIT_INDEX_FILE: index });
  const ident = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  const commit = await git(['commit-tree', tree, '-p', 'HEAD', '-m', 'worktree snapshot'], ident);
  const origin = path.join(root, 'origin.git');
  await execa('git', ['init', '-q', '--bare', origin]);
  const objects = await git(['rev-parse', '--path-format=absolute', '--git-common-dir']);
  writeFileSync(path.join(origin, 'objects', 'info', 'alternates'), `${path.join(objects, 'objects')}\n`);
  await execa('git', ['-C', origin, 'update-ref', 'refs/heads/main', commit]);
  await execa('git', ['-C', origin, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  return origin;
}

/** `name=value` lines and `name<<EOF` blocks of a GITHUB_OUTPUT or GITHUB_ENV file. */
function keyValues(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      out[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (lines[i]!.includes('=')) out[lines[i]!.split('=')[0]!] = lines[i]!.slice(lines[i]!.indexOf('=') + 1);
  }
  return out;
}

/** Every combination of a matrix (no include/exclude: the player refuses what it does not play). */
function entries(matrix: Record<string, unknown[]> | undefined): Record<string, unknown>[] {
  if (matrix === undefined) return [{}];
  if ('include' in matrix || 'exclude' in matrix) throw new Error('gha-player: matrix include/exclude is not played');
  return Object.entries(matrix).reduce<Record<string, unknown>[]>(
    (acc, [k, vs]) => acc.flatMap((a) => vs.map((v) => ({ ...a, [k]: v }))),
    [{}],
  );
}

/** Values of an env block with their expressions expanded. */
function expandEnv(env: Record<string, unknown> | undefined, ctx: ExprContext): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
}

/** Play every job of the workflow in `needs` order; each matrix entry is a job run of its own. */
export async function playWorkflow(o: PlayOptions): Promise<JobRun[]> {
  const done: JobRun[] = [];
  const pending = new Set(Object.keys(o.workflow.jobs));
  while (pending.size > 0) {
    const ready = [...pending].filter((j) => [o.workflow.jobs[j]!.needs ?? []].flat().every((n) => !pending.has(n)));
    if (ready.length === 0) throw new Error(`gha-player: jobs ${[...pending].join(', ')} need each other`);
    for (const j of ready) pending.delete(j);
    const runs = ready.flatMap((j) =>
      entries(o.workflow.jobs[j]!.strategy?.matrix)
        .filter((m) => o.matrix?.(j, m) ?? true)
        .map((m) => playJob(o, j, m, done)),
    );
    done.push(...(await Promise.all(runs)));
  }
  return done;
}

/** One job run: its `if:`, a fresh clone, then its steps. */
async function playJob(
  o: PlayOptions,
  name: string,
  matrix: Record<string, unknown>,
  before: JobRun[],
): Promise<JobRun> {
  const job = o.workflow.jobs[name]!;
  const id = `${name}${Object.values(matrix)
    .map((v) => `-${String(v)}`)
    .join('')}`;
  const workspace = path.join(o.root, 'jobs', id);
  const needs = Object.fromEntries(
    [job.needs ?? []].flat().map((n) => {
      const runs = before.filter((r) => r.job === n);
      const result = runs.every((r) => r.result === 'success') ? 'success' : 'failure';
      return [n, { result, outputs: Object.assign({}, ...runs.map((r) => r.outputs)) as Record<string, string> }];
    }),
  );
  const steps: Record<string, { outputs: Record<string, string>; outcome: string }> = {};
  const ctx: ExprContext = {
    github: { workspace, event_name: 'workflow_dispatch' },
    inputs: o.inputs ?? {},
    matrix,
    needs,
    steps,
  };
  const run: JobRun = { job: name, matrix, result: 'skipped', workspace, steps: [], outputs: {}, summary: '' };
  const needsOk = Object.values(needs).every((n) => n.result === 'success');
  if (!condition(job.if, ctx, { ok: needsOk })) return run;
  mkdirSync(path.join(o.root, 'scripts'), { recursive: true });
  // a runner's workspace starts empty; actions/checkout is played as a fresh clone made here
  if (job.steps.some((s) => s.uses?.startsWith('actions/checkout@')))
    await execa('git', ['clone', '-q', '--shared', o.origin, workspace], { timeout: 120_000 });
  else mkdirSync(workspace, { recursive: true });
  const env: Record<string, string> = {
    ...expandEnv(o.workflow.env, ctx),
    ...o.env,
    ...expandEnv(job.env, ctx),
    ...o.jobEnv?.(name, matrix),
  };
  const timeout = Math.min(o.stepTimeoutMs, (job['timeout-minutes'] ?? 360) * 60_000);
  let ok = true;
  for (const [i, step] of job.steps.entries()) {
    const label = expand(step.name ?? step.run ?? step.uses ?? `step ${i}`, ctx);
    if (!condition(step.if, ctx, { ok })) {
      run.steps.push({ name: label, outcome: 'skipped', stdout: '', stderr: '' });
      if (step.id) steps[step.id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    const files = Object.fromEntries(
      ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY'].map((k) => [
        k,
        path.join(o.root, 'scripts', `${id}-${i}.${k}`),
      ]),
    );
    for (const f of Object.values(files)) writeFileSync(f, '');
    const result =
      step.run !== undefined
        ? await runStep(o, id, i, expand(step.run, ctx), workspace, timeout, {
            ...env,
            ...expandEnv(step.env, ctx),
            ...files,
          })
        : usesStep(o, step, ctx, workspace);
    run.steps.push({ name: label, ...result });
    run.summary += readFileSync(files['GITHUB_STEP_SUMMARY']!, 'utf8');
    Object.assign(env, keyValues(files['GITHUB_ENV']!));
    if (step.id) steps[step.id] = { outputs: keyValues(files['GITHUB_OUTPUT']!), outcome: result.outcome };
    if (result.outcome === 'failure') ok = false;
  }
  run.result = ok ? 'success' : 'failure';
  run.outputs = expandEnv(job.outputs, ctx);
  return run;
}

/** A `run:` step: its script through bash -eo pipefail in the workspace, with only the env given (plus PATH, HOME). */
async function runStep(
  o: PlayOptions,
  id: string,
  i: number,
  script: string,
  cwd: string,
  timeout: number,
  env: Record<string, string>,
): Promise<Omit<StepRun, 'name'>> {
  const file = path.join(o.root, 'scripts', `${id}-${i}.sh`);
  writeFileSync(file, script);
  const base = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: process.env['HOME'] ?? '/root', LANG: 'C.UTF-8' };
  const runner = { CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_WORKSPACE: cwd, RUNNER_TEMP: path.join(o.root, 'tmp') };
  // npm ci as on a runner whose npm cache is warm (actions/setup-node's cache: npm): this machine's cache, offline first
  // and this checkout's built native addon offered as a local prebuild (helpers/native-prebuilds.ts): no SQLite compile
  const npm = {
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    ...nativePrebuildEnv(path.join(o.root, 'prebuilds')),
  };
  const r = await execa('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], {
    cwd,
    env: { ...base, ...npm, ...runner, ...env },
    extendEnv: false,
    reject: false,
    timeout,
    stdin: 'ignore',
  });
  return { outcome: r.exitCode === 0 ? 'success' : 'failure', stdout: r.stdout, stderr: r.stderr };
}

/** A `uses:` step: stood in for (checkout, setup-node, the artifact actions) or skipped, with a note saying which. */
function usesStep(o: PlayOptions, step: GhaStep, ctx: ExprContext, workspace: string): Omit<StepRun, 'name'> {
  const action = step.uses!.split('@')[0]!;
  const w = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, expand(String(v), ctx)]));
  const store = path.join(o.root, 'artifacts');
  const done = (note: string, ok = true): Omit<StepRun, 'name'> => ({
    outcome: ok ? 'success' : 'failure',
    note,
    stdout: '',
    stderr: ok ? '' : note,
  });
  if (action === 'actions/checkout') return done('not run: the job runs in a fresh clone of the snapshot');
  if (action === 'actions/setup-node') return done(`not run: this machine's Node ${process.version}`);
  if (action === 'actions/upload-artifact') {
    const n = uploadArtifact(workspace, store, w['name']!, w['path'] ?? '');
    const ok = n > 0 || w['if-no-files-found'] !== 'error';
    return done(`stood in for: ${n} files into artifact ${w['name']!}${ok ? '' : ' (if-no-files-found: error)'}`, ok);
  }
  if (action === 'actions/download-artifact') {
    const got = downloadArtifacts(store, workspace, {
      ...(w['name'] !== undefined ? { name: w['name'] } : {}),
      ...(w['pattern'] !== undefined ? { pattern: w['pattern'] } : {}),
      mergeMultiple: w['merge-multiple'] === 'true',
      ...(w['path'] !== undefined ? { path: w['path'] } : {}),
    });
    // a named artifact that does not exist fails the step, as on GitHub; a pattern may match none
    return done(`stood in for: artifacts ${got.join(', ') || '(none)'}`, w['name'] === undefined || got.length > 0);
  }
  return done(`skipped: ${step.uses!} is not played`);
}
