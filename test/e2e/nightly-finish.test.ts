// nightly.sh finish on stored journals (no cycles run, so it is in the default suite): it merges the shards that left a
// journal, through a `latest` link or a copy of it (an artifact upload drops links), names the missing shard as a
// failed one, writes the report (its summary.json valid against schemas/summary.schema.json) and the trend page, and
// exits with the night's verdict (a failed gate's 1 outranks the failed shard's 4).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult } from '../helpers/cli.js';
import { fixturePath, repoRoot } from '../helpers/paths.js';
import { validatorFor } from '../helpers/schemas.js';

const script = path.join(repoRoot, 'deploy', 'nightly', 'nightly.sh');

describe('nightly.sh finish', () => {
  const data = mkdtempSync(path.join(tmpdir(), 'soak-nightly-finish-'));
  afterAll(() => {
    rmSync(data, { recursive: true, force: true });
  });

  it('merges what the shards left, names the missing one, reports, and exits 1 on a failing gate', async () => {
    const night = path.join(data, 'nights', '2026-11-30');
    mkdirSync(path.join(night, 'shard-0', 'run-a'), { recursive: true });
    cpSync(
      fixturePath('journals', 'process-default', 'journal.ndjson'),
      path.join(night, 'shard-0', 'run-a', 'journal.ndjson'),
    );
    symlinkSync('run-a', path.join(night, 'shard-0', 'latest'));
    writeFileSync(path.join(night, 'shard-0', 'done'), '0\n');
    // shard 1 as an artifact download leaves it: `latest` a real folder; its run has checker violations (skew 40 ms)
    mkdirSync(path.join(night, 'shard-1', 'latest'), { recursive: true });
    cpSync(
      fixturePath('journals', 'process-skew-control', 'journal.ndjson'),
      path.join(night, 'shard-1', 'latest', 'journal.ndjson'),
    );
    writeFileSync(path.join(night, 'shard-1', 'done'), '0\n');
    const env = { NIGHT_KEY: '2026-11-30', SHARDS: '3', NIGHTLY_DATA: data, CI: '1' };
    const r = await execa(script, ['finish'], { env, reject: false, timeout: 300_000, stdin: 'ignore' });
    expect(r.exitCode, describeResult(r)).toBe(1);
    expect(r.stderr).toContain('nightly: shards without a journal (left out): 2');
    expect(r.stderr).toContain('nightly: FAILED shard 2: no done marker');
    expect(r.stderr).not.toMatch(/FAILED shard [01]/);
    expect(r.stdout).toMatch(/merged 2 runs \(\d+ cycles\)/);
    expect(r.stdout).toMatch(/verdict: FAIL/);
    const reports = path.join(data, 'reports');
    const dated = readdirSync(reports).filter((d) => d !== 'index.html');
    expect(dated).toHaveLength(1);
    expect(readFileSync(path.join(reports, 'index.html'), 'utf8')).toContain(dated[0]!);
    const summary = JSON.parse(readFileSync(path.join(reports, dated[0]!, 'summary.json'), 'utf8')) as unknown;
    expect(validatorFor('summary')(summary)).toEqual([]);
  });

  it('with no shard journal at all: exit 4, nothing merged', async () => {
    const env = { NIGHT_KEY: 'empty-night', SHARDS: '2', NIGHTLY_DATA: data };
    const r = await execa(script, ['finish'], { env, reject: false, timeout: 60_000, stdin: 'ignore' });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toMatch(/^nightly: FAILED shard 0: no done marker/m);
    expect(r.stderr).toMatch(/^nightly: no shard of empty-night left a journal/m);
  });
});
