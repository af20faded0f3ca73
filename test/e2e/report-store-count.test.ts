// End to end: a short soak's report counts the checkpoints `soak store stats --json` counts (one definition: committed).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

describe('report vs store stats', () => {
  it('the report states as many committed checkpoints as the store holds', async () => {
    const run = await soak(
      'run',
      '--cycles',
      '10',
      '--seed',
      '4',
      '--out',
      'runs',
      '--report-dir',
      'reports',
      '--json',
    );
    expect([0, 1, 2], describeResult(run)).toContain(run.exitCode);
    const { reportDir } = JSON.parse(String(run.stdout)) as { reportDir: string };
    const summary = JSON.parse(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')) as {
      dedup: { checkpoints: number; committed: number };
    };
    const stats = await soak('store', 'stats', path.join('runs', 'latest'), '--json');
    expect(stats.exitCode, describeResult(stats)).toBe(0);
    const store = JSON.parse(String(stats.stdout)) as { checkpoints: unknown[] };
    expect(summary.dedup.committed).toBe(store.checkpoints.length);
    expect(summary.dedup.checkpoints).toBeLessThanOrEqual(summary.dedup.committed);
    const md = readFileSync(path.join(reportDir, 'summary.md'), 'utf8');
    expect(md).toContain(`The store committed ${store.checkpoints.length}`);
  });
});
