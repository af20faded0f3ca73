// End to end: `soak report --baseline <dir|auto>` compares with the previous report; a bad baseline exits 3 in one line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixturePath } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 120_000);
const out = describeResult;
const reportOf = (stdout: unknown): string => path.dirname(/^report: (.+)$/m.exec(String(stdout))![1]!);

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-report-baseline-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak report --baseline', () => {
  it('puts the previous report into summary.json and the page; auto never takes the same run as its own baseline', async () => {
    // the torn-checkpoint run resumes every cycle (the default fixture's are all failed: no downtime to compare)
    const first = await soak('report', fixturePath('journals', 'process-torn-checkpoint'), '--out', 'reports');
    const before = reportOf(first.stdout);
    const firstJson = JSON.parse(readFileSync(path.join(before, 'summary.json'), 'utf8')) as { runId: string };
    const second = await soak(
      'report',
      fixturePath('journals', 'process-torn-checkpoint'),
      '--out',
      'reports',
      '--baseline',
      before,
    );
    expect(second.stdout, out(second)).toContain(`baseline: ${path.basename(before)}\n`);
    const dir = reportOf(second.stdout);
    const json = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as {
      baseline: { runId: string; dir: string; downtime: { nA: number; pValue: number } | null };
    };
    expect(json.baseline.runId).toBe(firstJson.runId);
    expect(json.baseline.dir).toBe(path.basename(before));
    expect(json.baseline.downtime?.nA).toBe(20);
    expect(json.baseline.downtime?.pValue).toBe(1); // the same run compared with itself
    expect(readFileSync(path.join(dir, 'index.html'), 'utf8')).toContain('<h2>Since last report</h2>');
    const auto = await soak(
      'report',
      fixturePath('journals', 'process-torn-checkpoint'),
      '--out',
      'reports',
      '--baseline',
      'auto',
    );
    expect(auto.stdout, out(auto)).toContain('baseline: none (no earlier report of this scenario and target)');
  });

  it('a missing baseline or a malformed cycles.csv exits 3 with one line naming the file', async () => {
    const missing = await soak(
      'report',
      fixturePath('journals', 'process-default'),
      '--out',
      'r2',
      '--baseline',
      'nope',
    );
    expect(missing.exitCode, out(missing)).toBe(3);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toContain(`${path.join(tmp, 'nope', 'summary.json')}: cannot read the baseline`);
    const good = await soak('report', fixturePath('journals', 'process-default'), '--out', 'r2');
    const dir = reportOf(good.stdout);
    writeFileSync(path.join(dir, 'cycles.csv'), `${readFileSync(path.join(dir, 'cycles.csv'), 'utf8')}1,"work\n`);
    const bad = await soak('report', fixturePath('journals', 'process-default'), '--out', 'r2', '--baseline', dir);
    expect(bad.exitCode, out(bad)).toBe(3);
    expect(bad.stderr, out(bad)).toMatch(/cycles\.csv:\d+: Quote Not Closed: [^\n]*\n?$/);
  });
});
