// End to end, `soak report` (the real CLI) on the shared runs (test/helpers/cli-runs.ts): it re-derives the run's
// summary from the journal alone, with the run's verdict; a corrupt journal line or a missing run folder exits with
// the line or folder named and no report written.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../harness/analysis/summary.js';
import { describeResult, outputLines, soakIn } from '../helpers/cli.js';
import { cliRuns, type CliResult } from '../helpers/cli-runs.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);
const out = describeResult;
/** A report's summary.json. */
const readSummary = (file: string): Summary => JSON.parse(readFileSync(file, 'utf8')) as Summary;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-report-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak report', () => {
  let good: CliResult;
  let runDir: string;
  let reportDir: string;
  let summary: Summary;

  beforeAll(async () => {
    ({ good, runDir, reportDir } = await cliRuns());
    summary = readSummary(path.join(reportDir, 'summary.json'));
  }, 900_000);

  it('`soak report` re-derives the same summary from the journal alone', async () => {
    const r = await soak('report', runDir, '--out', 'reports-again');
    expect(r.exitCode, out(r)).toBe(good.exitCode); // the verdict's exit code, as `soak run` gives it
    const again = path.join(tmp, 'reports-again', path.basename(reportDir));
    // the report's verdict, and on a saturated machine the warning above it, as the run printed them
    const warned = outputLines(good.stdout).findIndex((l) => l.startsWith('warning: '));
    const verdict = warned < 0 ? [outputLines(good.stdout).at(-1)] : outputLines(good.stdout).slice(warned);
    expect(outputLines(r.stdout)).toEqual([`report: ${path.join(again, 'index.html')}`, ...verdict]);
    expect(readSummary(path.join(again, 'summary.json'))).toEqual(summary);
  });

  it('a corrupt journal line in the middle: exit 1 naming the line; no report written', async () => {
    const copy = path.join(tmp, 'corrupt-run');
    mkdirSync(copy);
    const journal = outputLines(readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8'));
    journal[4] = '{"schemaVersion":1,"t":12.5,"type":"kill","cyc';
    writeFileSync(path.join(copy, 'journal.ndjson'), `${journal.join('\n')}\n`);
    const r = await soak('report', copy, '--out', 'reports-corrupt');
    expect(r.exitCode, out(r)).toBe(1);
    expect(r.stderr).toContain('line 5 is corrupt');
    expect(existsSync(path.join(tmp, 'reports-corrupt'))).toBe(false);
  });

  it('a missing run folder: exit 3 naming it, no reports dir created', async () => {
    const r = await soak('report', '/no/such/dir', '--out', 'reports-missing');
    expect(r.exitCode, out(r)).toBe(3);
    expect(r.stderr).toContain('run folder /no/such/dir does not exist');
    expect(existsSync(path.join(tmp, 'reports-missing'))).toBe(false);
  });
});
