// Every bench answers --help with its options (exit 0) and a bad option with one line (exit 3), without running.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { execaNode } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

/** Bench entry points: every bench/*.ts except its shared modules. */
const SHARED = [
  'ab-soaks.ts',
  'args.ts',
  'bare-floor.ts',
  'bench-page.ts',
  'floor-trials.ts',
  'growth-page.ts',
  'growth-samples.ts',
  'knee-page.ts',
  'measure.ts',
  'ram-like.ts',
  'restore-timeline.ts',
  'synthetic-journal.ts',
  'tree-memory.ts',
];
const benches = readdirSync(path.join(repoRoot, 'bench'))
  .filter((f) => f.endsWith('.ts') && !SHARED.includes(f))
  .map((f) => f.replace(/\.ts$/, ''));
const entry = (name: string): string => path.join(repoRoot, 'dist', 'bench', `${name}.js`);

describe('bench --help', () => {
  it('finds the benches', () => {
    expect(benches).toEqual(expect.arrayContaining(['run', 'hot-paths', 'microvm-phases', 'store-vs-peers']));
  });

  it.each(benches)('%s --help prints its usage and exits 0', async (name) => {
    const r = await execaNode(entry(name), ['--help'], { reject: false, timeout: 60_000 });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^usage: /);
    expect(r.stderr).toBe('');
  });

  it.each(benches.filter((b) => b !== 'run'))('%s names a bad option in one line and exits 3', async (name) => {
    const r = await execaNode(entry(name), ['--no-such-option'], { reject: false, timeout: 60_000 });
    expect(r.exitCode).toBe(3);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringContaining("'--no-such-option'")]);
  });
});
