// End to end: a short soak's report counts the checkpoints and bytes `soak store stats --json` counts, and `soak store
// verify` checks as many (one definition: committed to the store by the end of the run, recorded in run-end).
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 240_000);

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-store-count-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('report vs store stats vs store verify', () => {
  it('summary.json, summary.md, index.html, store stats and store verify state one checkpoint count', async () => {
    const run = await soak(
      ...['run', '--cycles', '10', '--boot-samples', '0', '--seed', '4'],
      ...['--out', 'runs', '--report-dir', 'reports', '--json'],
    );
    expect([0, 1, 2], describeResult(run)).toContain(run.exitCode);
    const { reportDir } = JSON.parse(run.stdout) as { reportDir: string };
    const summary = JSON.parse(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')) as {
      dedup: { checkpoints: number; committed: number; journaled: number; counted: string; ratio: number };
    };
    const stats = await soak('store', 'stats', path.join('runs', 'latest'), '--json');
    expect(stats.exitCode, describeResult(stats)).toBe(0);
    const store = JSON.parse(stats.stdout) as { checkpoints: unknown[]; ratio: number };
    const verify = await soak('store', 'verify', path.join('runs', 'latest'), '--json');
    expect(verify.exitCode, describeResult(verify)).toBe(0);
    const n = store.checkpoints.length;
    expect((JSON.parse(verify.stdout) as { checkpoints: number }).checkpoints).toBe(n);
    expect(summary.dedup.counted).toBe('store');
    expect([summary.dedup.checkpoints, summary.dedup.committed]).toEqual([n, n]);
    expect(summary.dedup.ratio).toBeCloseTo(store.ratio, 9);
    expect(summary.dedup.journaled).toBeLessThanOrEqual(n);
    const said = `Checkpoints committed to the store by the end of the run (a manifest in place, as soak store stats counts them): ${n},`;
    expect(readFileSync(path.join(reportDir, 'summary.md'), 'utf8')).toContain(said);
    expect(readFileSync(path.join(reportDir, 'index.html'), 'utf8')).toContain(said);
  });
});
