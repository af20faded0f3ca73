// deploy/ci/nightly-soak.yml played as written (issue 32's done-when): its jobs' `run:` steps in order, each job in a
// fresh clone of a snapshot of this worktree (test/helpers/gha-player.ts: GITHUB_OUTPUT / GITHUB_STEP_SUMMARY /
// GITHUB_ENV files, the env the workflow sets; `uses:` steps stood in for or skipped, each with a note), on a night
// where shard 1 crashes (SOAK_TEST_RUNNER_ERROR_AFTER=1: an internal error after its first cycle, exit 4). That night
// is red, the report is still written and published to gh-pages (a bare repo standing in for origin), and the job
// summary names the failed shard. Negative control: the same workflow without its build step is red before any shard
// runs. In the suite: 2 shards x 2 cycles (SHARDS/CYCLES over the workflow's env, the matrix cut to match);
// SOAK_E2E_WORKFLOW=1 plays the workflow's own 4-shard matrix.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playWorkflow, snapshotOrigin, type JobRun, type Workflow } from '../helpers/gha-player.js';
import { repoRoot } from '../helpers/paths.js';
import { validatorFor } from '../helpers/schemas.js';

const LONG = process.env['SOAK_E2E_WORKFLOW'] === '1';
const NIGHT = '2026-11-30';
const text = readFileSync(path.join(repoRoot, 'deploy', 'ci', 'nightly-soak.yml'), 'utf8');
const workflow = parse(text) as Workflow;
const shards = LONG ? Number(workflow.env?.['SHARDS']) : 2;
const env = { SHARDS: String(shards), CYCLES: String(2 * shards), NIGHTLY_RUN_ARGS: '--boot-samples 0' };

let root: string;
let origin: string;
beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'soak-workflow-run-'));
  origin = await snapshotOrigin(repoRoot, root);
});
afterAll(() => rmSync(root, { recursive: true, force: true }), 600_000);

/** What a job run did, for assertion messages. */
function describeJob(r: JobRun | undefined): string {
  if (r === undefined) return 'not played';
  const steps = r.steps.map((s) => `  ${s.outcome} ${s.name}${s.note ? ` (${s.note})` : ''}`);
  const failed = r.steps.find((s) => s.outcome === 'failure');
  return [`${r.job} ${JSON.stringify(r.matrix)}: ${r.result}`, ...steps, failed?.stderr.slice(-3000) ?? ''].join('\n');
}

/** Play `wf` into its own folder: shard `crash` planted with an internal error after one cycle. */
function night(wf: Workflow, dir: string, crash: number | null, only?: number): Promise<JobRun[]> {
  return playWorkflow({
    workflow: wf,
    root: path.join(root, dir),
    origin,
    inputs: { night: NIGHT },
    env,
    matrix: (job, m) => job !== 'shard' || (only !== undefined ? m['index'] === only : Number(m['index']) < shards),
    jobEnv: (job, m): Record<string, string> =>
      job === 'shard' && m['index'] === crash ? { SOAK_TEST_RUNNER_ERROR_AFTER: '1' } : {},
    stepTimeoutMs: 600_000,
  });
}

describe('the nightly workflow, played as written', () => {
  it('plays every matrix entry it lists, one per shard of its SHARDS', () => {
    expect(workflow.jobs['shard']!.strategy!.matrix!['index']).toEqual(
      Array.from({ length: Number(workflow.env?.['SHARDS']) }, (_, i) => i),
    );
  });

  it(
    'a night where one shard crashes is red; the report is still written and published; the summary names the shard',
    { timeout: 1_200_000 },
    async () => {
      const runs = await night(workflow, 'crash-night', 1);
      const job = (name: string, index?: number): JobRun | undefined =>
        runs.find((r) => r.job === name && (index === undefined || r.matrix['index'] === index));
      const all = runs.map(describeJob).join('\n');
      expect(job('key')?.outputs['night'], all).toBe(NIGHT);

      const healthy = job('shard', 0)!;
      expect(healthy.result, describeJob(healthy)).toBe('success');
      expect(job('build')?.steps.map((s) => s.name)).toEqual(expect.arrayContaining(['npm ci', 'Build']));
      expect(healthy.steps.map((s) => s.name)).toContain('npm ci --omit=dev');
      expect(healthy.steps.find((s) => s.name.startsWith('actions/checkout'))?.note).toMatch(/fresh clone/);
      const shardDir = path.join(healthy.workspace, 'nightly', 'nights', NIGHT, 'shard-0');
      expect(validatorFor('run')(JSON.parse(readFileSync(path.join(shardDir, 'run.json'), 'utf8')))).toEqual([]);

      const crashed = job('shard', 1)!;
      expect(crashed.result, describeJob(crashed)).toBe('failure');
      expect(crashed.steps.find((s) => s.outcome === 'failure')?.name).toMatch(/^Shard 1 /);
      expect(crashed.summary).toMatch(new RegExp(`shard 1/${shards} of ${NIGHT} failed \\(exit 4, 1 cycles\\)`));

      const finish = job('finish')!;
      expect(finish.result, describeJob(finish)).toBe('failure'); // the night is red
      const step = finish.steps.find((s) => s.name.startsWith('Merge, report'))!;
      expect(step.outcome).toBe('failure');
      expect(step.stderr).toMatch(/nightly: FAILED shard 1: exit 4: soak: internal error: injected runner error/);
      expect(finish.summary).toContain(`## Nightly ${NIGHT}: 1 of ${shards} shards failed`);
      expect(finish.summary).toMatch(/- shard 1: exit 4/);
      const report = path.join(finish.workspace, 'site', 'reports', `${NIGHT}-default`);
      expect(existsSync(path.join(report, 'index.html')), describeJob(finish)).toBe(true);
      const summary = JSON.parse(readFileSync(path.join(report, 'summary.json'), 'utf8')) as { sources: unknown[] };
      expect(validatorFor('summary')(summary)).toEqual([]);
      expect(summary.sources).toHaveLength(shards);
      expect(existsSync(path.join(finish.workspace, 'nightly', 'nights', NIGHT, 'junit-gates.xml'))).toBe(true);
      expect(finish.steps.find((s) => s.name.startsWith('Publish'))?.outcome).toBe('success');
      const published = await execa('git', ['-C', origin, 'ls-tree', '-r', '--name-only', 'gh-pages']);
      expect(published.stdout.split('\n')).toEqual(
        expect.arrayContaining([`reports/${NIGHT}-default/summary.json`, 'reports/index.html']),
      );
    },
  );

  it('negative control: without its build step the night is red and no shard runs (no dist to run)', async () => {
    const unbuilt = structuredClone(workflow);
    for (const j of Object.values(unbuilt.jobs)) j.steps = j.steps.filter((s) => s.run !== 'npm run build');
    expect(JSON.stringify(unbuilt)).not.toBe(JSON.stringify(workflow));
    delete unbuilt.jobs['finish'];
    const runs = await night(unbuilt, 'unbuilt', null, 0);
    const build = runs.find((r) => r.job === 'build')!;
    expect(build.result, describeJob(build)).toBe('failure');
    expect(build.steps.find((s) => s.outcome === 'failure')?.note).toMatch(/0 files into artifact dist/);
    expect(runs.find((r) => r.job === 'shard')?.result).toBe('skipped');
  });
});
