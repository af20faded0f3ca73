// End to end, `soak gates` (the real CLI) on the shared runs (test/helpers/cli-runs.ts): its --json agrees with the
// run; the --skew-ms 40 run fails; a torn last journal line is tolerated; a corrupt line in the middle, a missing run
// folder and one without a journal are refused, each named.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeResult, outputLines, soakIn } from '../helpers/cli.js';
import { cliRuns, type CliResult } from '../helpers/cli-runs.js';
import { failedGates, gatesJson } from '../helpers/gates.js';
import { exitCodeFor, type RunVerdict } from '../../harness/gates/verdict.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);
const out = describeResult;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-gates-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak gates', () => {
  let good: CliResult;
  let runDir: string;
  let skewDir: string;

  beforeAll(async () => {
    ({ good, runDir, skewDir } = await cliRuns());
  }, 900_000);

  it('`gates <run-dir> --json` parses and agrees with the run', async () => {
    const r = await soak('gates', runDir, '--json');
    expect(r.exitCode, out(r)).toBe(good.exitCode);
    const j = JSON.parse(r.stdout) as { schemaVersion: number; runDirs: string[]; verdict: string };
    expect(j.schemaVersion).toBe(1);
    expect(j.runDirs).toEqual([runDir]);
    expect(exitCodeFor(j.verdict as RunVerdict)).toBe(good.exitCode);
    const all = await gatesJson([runDir]);
    expect(all.gates.length).toBeGreaterThanOrEqual(8);
    expect(failedGates(all).other).toEqual([]); // a timing gate alone may fail on a loaded machine
  });

  it('negative control: `gates` on the --skew-ms 40 run exits 1', async () => {
    const g = await soak('gates', skewDir);
    expect(g.exitCode, out(g)).toBe(1);
    expect(outputLines(g.stdout).at(-1)).toMatch(/^verdict: FAIL \(/);
  });

  it('a torn last journal line is tolerated: gates gives the same verdict', async () => {
    const copy = path.join(tmp, 'torn-run');
    mkdirSync(copy);
    writeFileSync(
      path.join(copy, 'journal.ndjson'),
      `${readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')}{"schemaVersion":1,"t":9e9,"type":"cyc`,
    );
    const r = await soak('gates', copy, '--json');
    expect(r.exitCode, out(r)).toBe(good.exitCode);
  });

  it('a corrupt journal line in the middle: exit 1 naming the line, nothing printed', async () => {
    const copy = path.join(tmp, 'corrupt-run');
    mkdirSync(copy);
    const journal = outputLines(readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8'));
    journal[4] = '{"schemaVersion":1,"t":12.5,"type":"kill","cyc';
    writeFileSync(path.join(copy, 'journal.ndjson'), `${journal.join('\n')}\n`);
    const g = await soak('gates', copy);
    expect(g.exitCode, out(g)).toBe(1);
    expect(g.stderr).toContain(`journal ${path.join(copy, 'journal.ndjson')} line 5 is corrupt`);
    expect(g.stdout).toBe('');
  });

  it('a missing run folder, and a folder with no journal: exit 3 naming it', async () => {
    const g = await soak('gates', '/no/such/dir');
    expect(g.exitCode, out(g)).toBe(3);
    const empty = path.join(tmp, 'not-a-run');
    mkdirSync(empty);
    const n = await soak('gates', empty);
    expect(n.exitCode, out(n)).toBe(3);
    expect(n.stderr).toContain(`run folder ${empty} has no journal.ndjson`);
  });
});
