// The package installs: `npm pack` -> `npm install <tarball>` into an empty project (offline: its dependencies are
// seeded from this checkout's node_modules, the runtime ones only) -> node_modules/.bin/soak runs a short soak there
// and writes its report. And installing runs no build: no install-time script needs a dev dependency.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeResult } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-pkg-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  files: string[];
};

describe('the npm package', () => {
  it('runs no script on install (npm ci --omit=dev has no typescript to build with)', () => {
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) expect(pkg.scripts[hook]).toBeUndefined();
    expect(pkg.scripts['prepack']).toMatch(/build/);
  });

  it('packs, installs from the tarball offline into an empty project, and its soak bin runs 3 cycles with a report', async () => {
    // dist/ is built before the e2e tests (npm test); --ignore-scripts keeps this test from rebuilding it
    const packed = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', tmp], {
      cwd: repoRoot,
      timeout: 300_000,
    });
    const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
    const paths = files.map((f) => f.path);
    for (const needed of [
      'dist/harness/cli.js',
      'dist/harness/targets/process/agent.js',
      'scenarios/default.yaml',
      'adapters/gvisor/adapter.mjs', // scenarios/gvisor-*.yaml name it
      'docs/target-protocol.md',
    ])
      expect(paths).toContain(needed);
    expect(paths.some((p) => p.startsWith('gates/') && p.endsWith('.yaml'))).toBe(true);
    expect(paths.some((p) => p.startsWith('test/') || p.startsWith('dist/bench/'))).toBe(false);

    const project = path.join(tmp, 'consumer');
    mkdirSync(path.join(project, 'node_modules'), { recursive: true });
    writeFileSync(path.join(project, 'package.json'), '{"name":"consumer","version":"1.0.0","private":true}\n');
    // the runtime dependency tree, copied from this checkout: npm then has nothing to fetch
    const runtime = await execa('npm', ['ls', '--omit=dev', '--all', '--parseable'], {
      cwd: repoRoot,
      reject: false,
      timeout: 300_000,
    });
    const modules = path.join(repoRoot, 'node_modules');
    for (const dir of runtime.stdout.split('\n').filter((d) => d.startsWith(`${modules}${path.sep}`)))
      cpSync(dir, path.join(project, 'node_modules', path.relative(modules, dir)), { recursive: true });
    const install = await execa('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(tmp, filename)], {
      cwd: project,
      reject: false,
      timeout: 600_000,
    });
    expect(install.exitCode, describeResult(install)).toBe(0);

    const bin = path.join(project, 'node_modules', '.bin', 'soak');
    const run = await execa(bin, ['run', '--cycles', '3', '--boot-samples', '0', '--no-judge'], {
      cwd: project,
      reject: false,
      timeout: 600_000,
      env: { CI: '1' },
    });
    expect(run.exitCode, describeResult(run)).toBe(0);
    const reports = path.join(project, 'reports');
    const dated = readdirSync(reports).find((d) => /^\d{4}-\d{2}-\d{2}-default$/.test(d));
    expect(dated, describeResult(run)).toBeDefined();
    const summary = JSON.parse(readFileSync(path.join(reports, dated!, 'summary.json'), 'utf8')) as {
      cycles: { total: number };
      environment: { harnessVersion: string; gitCommit: string };
    };
    expect(summary.cycles.total).toBe(3);
    // installed inside another project's folder, the harness does not claim that project's commit as its own
    expect(summary.environment.gitCommit).toBe('unknown');
    expect(existsSync(path.join(reports, dated!, 'index.html'))).toBe(true);
  }, 900_000);
});
