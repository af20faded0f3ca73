// nightly.sh's night key: NIGHT_KEY when set; else the UTC date of the scheduled time in the Job name a CronJob gives
// its Job (<cronjob>-<scheduled unix minutes>), the same for every shard and the finish Job however late a pod starts.
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const script = path.join(repoRoot, 'deploy', 'nightly', 'nightly.sh');
const keyWith = async (env: Record<string, string>) =>
  execa(script, ['key'], { env: { PATH: process.env['PATH'] ?? '', ...env }, extendEnv: false, reject: false });

/** A CronJob's Job name for a scheduled UTC time. */
const jobName = (cron: string, iso: string): string => `${cron}-${Date.parse(iso) / 60_000}`;

describe('nightly.sh key', () => {
  it('is the UTC date of the CronJob schedule: shards at 02:17 and finish at 04:20 agree', async () => {
    const shards = await keyWith({ NIGHT_JOB_NAME: jobName('keepstate-soak-shards', '2026-12-01T02:17:00Z') });
    const finish = await keyWith({ NIGHT_JOB_NAME: jobName('keepstate-soak-finish', '2026-12-01T04:20:00Z') });
    expect([shards.exitCode, shards.stdout]).toEqual([0, '2026-12-01']);
    expect(finish.stdout).toBe('2026-12-01');
  });

  it('NIGHT_KEY wins; a Job name without a scheduled minute (kubectl create job) falls back to today, and says so', async () => {
    const set = await keyWith({ NIGHT_KEY: '2026-11-30', NIGHT_JOB_NAME: jobName('x', '2026-12-01T02:17:00Z') });
    expect(set.stdout).toBe('2026-11-30');
    const manual = await keyWith({ NIGHT_JOB_NAME: 'manual-run-1' });
    expect(manual.stdout).toBe(new Date().toISOString().slice(0, 10));
    expect(manual.stderr).toMatch(/^nightly: NIGHT_JOB_NAME 'manual-run-1'/);
  });
});
