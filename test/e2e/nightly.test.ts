// The nightly pipeline end to end (deploy/nightly/nightly.sh), shortened: 2 shards x 3 cycles, one with a planted
// fault (--skew-ms 40), then finish: merge, report, gates. A failing gate never stops the pipeline before the report.
// It takes 2-4 minutes on a loaded 2-core machine, so it runs only when asked: SOAK_E2E_NIGHTLY=1 npx vitest run
// test/e2e/nightly.test.ts (README, "Nightly soaks", has the full 4-shard, two-night dry run).
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa, type Result } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const script = path.join(repoRoot, 'deploy', 'nightly', 'nightly.sh');
const data = mkdtempSync(path.join(tmpdir(), 'soak-nightly-'));
const env = { NIGHT_KEY: '2026-11-30', SHARDS: '2', CYCLES: '6', NIGHTLY_DATA: data, CI: '1' };

/** One step of the pipeline, as the CronJobs and the workflow call it. */
function step(...args: string[]): Promise<Result> {
  return execa(script, args, { env, reject: false, timeout: 900_000, stdin: 'ignore' });
}

describe.skipIf(process.env['SOAK_E2E_NIGHTLY'] !== '1')('nightly.sh: shards that only run, then finish', () => {
  afterAll(() => {
    rmSync(data, { recursive: true, force: true });
  });

  it(
    'runs 2 shards (one failing its gates), merges them and writes the report whatever the gates say',
    { timeout: 900_000 },
    async () => {
      const [healthy, faulty] = await Promise.all([step('shard', '0'), step('shard', '1', '--', '--skew-ms', '40')]);
      expect(healthy.exitCode, describeResult(healthy)).toBe(0);
      expect(faulty.exitCode, describeResult(faulty)).toBe(0); // the shard ran: judging is finish's work
      const night = path.join(data, 'nights', '2026-11-30');
      for (const i of [0, 1]) expect(readFileSync(path.join(night, `shard-${i}`, 'done'), 'utf8').trim()).toBe('0');

      const finish = await step('finish');
      expect(finish.exitCode, describeResult(finish)).toBe(1); // the planted fault fails a gate: the night's verdict
      expect(String(finish.stdout)).toMatch(/merged 2 runs \(6 cycles\)/);
      expect(String(finish.stdout)).toMatch(/verdict: FAIL/);
      const reports = path.join(data, 'reports');
      const dated = readdirSync(reports).filter((d) => /^\d{4}-\d{2}-\d{2}-default/.test(d));
      expect(dated).toEqual(['2026-11-30-default']); // dated by the night key, not by the day the shards ran
      expect(existsSync(path.join(reports, dated[0]!, 'summary.md'))).toBe(true);
      expect(readFileSync(path.join(reports, 'index.html'), 'utf8')).toContain(dated[0]!);
    },
  );

  it('rejects a bad step or key with exit 3 and a one-line reason', async () => {
    const bad = await execa(script, ['finish'], { env: { ...env, NIGHT_KEY: '../x' }, reject: false });
    expect(bad.exitCode).toBe(3);
    expect(bad.stderr).toMatch(/^nightly: NIGHT_KEY: /);
    const usage = await step('judge');
    expect(usage.exitCode).toBe(3);
  });
});
