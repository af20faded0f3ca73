// End to end, `soak run` (the real CLI, dist/harness/cli.js): an 8-cycle run prints its run folder, report and
// verdict, writes summary.json, the report's files and an NDJSON journal; the --skew-ms 40 negative control fails
// (exit 1); bad input exits 3 naming the file or field with nothing written. The runs are shared with the other
// cli-<verb> files (test/helpers/cli-runs.ts).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Summary } from '../../harness/analysis/summary.js';
import { describeResult, literal, outputLines, soakIn } from '../helpers/cli.js';
import { cliRuns, type CliResult } from '../helpers/cli-runs.js';
import { failedGates, gatesJson, isTimingGate } from '../helpers/gates.js';
import { repoRoot as root } from '../helpers/paths.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);
const out = describeResult;
/** A report's summary.json. */
const readSummary = (file: string): Summary => JSON.parse(readFileSync(file, 'utf8')) as Summary;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-run-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak run (process target)', () => {
  let good: CliResult;
  let skew: CliResult;
  let runDir: string;
  let reportDir: string;
  let skewReportDir: string;
  let summary: Summary;

  beforeAll(async () => {
    ({ good, skew, runDir, reportDir, skewReportDir } = await cliRuns());
    summary = readSummary(path.join(reportDir, 'summary.json'));
  }, 900_000); // two short soaks at once on a loaded 2-core machine, or the wait for another file's

  it('exits 2 (insufficient data: 8 cycles are too few for gates 2, 6, 7, 8), printing the run folder, report path and verdict', async () => {
    // Judged on every gate but those on measured time, the verdict is exactly "insufficient" (exit 2). Timing gates are
    // left out of that judgement because a loaded machine can fail them, which is not what this test is about.
    const all = await gatesJson([runDir]);
    const untimed = path.join(tmp, 'gates-untimed');
    cpSync(path.join(root, 'gates'), untimed, { recursive: true });
    for (const g of all.gates.filter(isTimingGate))
      rmSync(path.join(untimed, `${String(g.id).padStart(2, '0')}-${g.name}.yaml`));
    const judged = await gatesJson([runDir], '--gates-dir', untimed);
    expect(judged.gates.map((g) => g.id)).toEqual([2, 5, 6, 7, 8]);
    expect(judged.exitCode, JSON.stringify(judged)).toBe(2);
    expect(judged.verdict).toBe('insufficient');
    // The run judges every gate: it says exactly the same (exit 2), unless a timing gate (and only a timing gate) failed.
    // On a machine the run's own samples call saturated, such a fail is inconclusive (saturated), exit 2 all the same.
    const failed = failedGates(all);
    const saturated = all.timing.saturated;
    expect(failed.other, out(good)).toEqual([]);
    expect(good.exitCode, out(good)).toBe(failed.timing.length === 0 || saturated ? 2 : 1);
    const printed = outputLines(good.stdout);
    expect(printed[0]).toBe(`run folder: ${runDir} (complete, 8 cycles run now, 8 in the run)`);
    expect(printed).toContain(`report: ${path.join(reportDir, 'index.html')}`);
    expect(printed.at(-1)).toMatch(
      failed.timing.length === 0
        ? /^verdict: INSUFFICIENT DATA \(/
        : saturated
          ? /^verdict: INCONCLUSIVE AT 95% \(.*; SATURATED machine: load p50 [\d.]+ on \d+ cores, CPU steal p50 [\d.]+%: #[\d, #]+ inconclusive \(saturated\)\)$/
          : new RegExp(`^verdict: FAIL \\(.*; failed: ${literal(failed.timing.join(', '))}\\)$`),
    );
    expect(printed.some((l) => l.startsWith('warning: Measured on a saturated machine'))).toBe(saturated);
    expect(good.stderr).toContain('scenario default');
    expect(path.basename(reportDir)).toBe(`${summary.date}-default`);
  });

  it('summary.json has every field issue 2 lists: 8 cycles, all resumed, 0 violations', () => {
    expect(summary).toMatchObject({ schemaVersion: 1, scenario: 'default', target: 'process', seed: 7, violations: 0 });
    expect(summary.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(summary.cycles).toEqual({ total: 8, resumed: 8, failed: 0, indeterminate: 0 });
    expect(summary.killResume.successes).toBe(8);
    expect(summary.killResume.trials).toBe(8);
    expect(summary.killResume.wilson95?.[0]).toBeCloseTo(0.675592, 6); // 8 / (8 + z^2)
    expect(summary.killResume.wilson95?.[1]).toBe(1);
    const d = summary.downtimeMs as Record<'max' | 'mean' | 'min' | 'n' | 'p50' | 'p90' | 'p95' | 'p99', number>;
    expect(Object.keys(d).sort()).toEqual(['max', 'mean', 'min', 'n', 'p50', 'p90', 'p95', 'p99']);
    expect(d.n).toBe(8);
    expect(d.min).toBeGreaterThan(0);
    expect([
      d.min <= d.p50,
      d.p50 <= d.p90,
      d.p90 <= d.p95,
      d.p95 <= d.p99,
      d.p99 <= d.max,
      d.min <= d.mean,
      d.mean <= d.max,
    ]).toEqual(Array(7).fill(true));
    expect(summary.lostSteps.n).toBe(8);
    expect(summary.lostSteps.max).toBeGreaterThanOrEqual(summary.lostSteps.mean ?? Number.NaN);
    expect(summary.lostSteps.mean).toBeGreaterThanOrEqual(0);
    const dd = summary.dedup;
    expect(dd.checkpoints).toBeGreaterThanOrEqual(1);
    expect(dd.logicalBytes).toBeGreaterThan(dd.storedBytes);
    expect(dd.storedBytes).toBeGreaterThan(0);
    expect(dd.ratio).toBeCloseTo(dd.logicalBytes / dd.storedBytes, 9);
    expect(summary.environment).toMatchObject({
      node: process.version,
      cores: os.cpus().length,
      target: { kind: 'process' },
    });
    for (const k of ['os', 'arch', 'cpuModel', 'kernel', 'gitCommit', 'harnessVersion'] as const)
      expect(typeof summary.environment[k], k).toBe('string');
  });

  it('the report folder holds the four files; cycles.csv has one row per cycle', () => {
    for (const f of ['summary.json', 'summary.md', 'cycles.csv', 'index.html'])
      expect(existsSync(path.join(reportDir, f)), f).toBe(true);
    const csv = outputLines(readFileSync(path.join(reportDir, 'cycles.csv'), 'utf8'));
    expect(csv[0]!.startsWith('cycle,phase,observedPhase,outcome,downtimeMs')).toBe(true);
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 4)[0])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(csv.slice(1).every((l) => l.split(',')[3] === 'ok')).toBe(true);
  });

  it('the journal is NDJSON with a schemaVersion on every event and 8 ok cycle outcomes', () => {
    const events = outputLines(readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')).map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    expect(events.every((e) => e.schemaVersion === 1 && typeof e.t === 'number')).toBe(true);
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'complete', cycles: 8 });
    expect(events.filter((e) => e.type === 'cycle').map((e) => e.outcome)).toEqual(Array(8).fill('ok'));
    expect(events.filter((e) => e.type === 'kill').length).toBeGreaterThanOrEqual(8);
  });

  it('this fresh journal analyses the same through the fast path and through JSON.parse on every line', async () => {
    const { loadRuns } = await import('../../harness/analysis/load-runs.js');
    expect(await loadRuns([runDir])).toEqual(await loadRuns([runDir], { fastPath: false }));
  });

  it('negative control: --skew-ms 40 makes violations > 0 and exits 1', () => {
    expect(skew.exitCode, out(skew)).toBe(1);
    expect(outputLines(skew.stdout).at(-1)).toMatch(/^verdict: FAIL \(/);
    expect(skew.stdout).toMatch(/^violations: [1-9]\d*, e\.g\. /m);
    const s = readSummary(path.join(skewReportDir, 'summary.json'));
    expect(s.violations).toBeGreaterThan(0);
    expect(s.cycles.failed).toBeGreaterThan(0);
    expect(s.cycles.total).toBe(4);
  });
});

// Each case has its own file and folders, so they run at once.
describe.concurrent('bad input: exit 3, a message naming the file/field, nothing written', () => {
  /** `soak run` with fresh --out and --report-dir; checks that neither was created. */
  async function badRun(name: string, ...args: string[]): Promise<Result> {
    const r = await soak('run', ...args, '--out', `runs-${name}`, '--report-dir', `reports-${name}`);
    expect(existsSync(path.join(tmp, `reports-${name}`)), `${name}: reports dir written\n${out(r)}`).toBe(false);
    return r;
  }

  it('a scenario file with invalid fields: every field named with the file, exit 3', async () => {
    const file = path.join(tmp, 'bad-fields.yaml');
    writeFileSync(file, 'name: bad\ncycles: -1\nkill:\n  workDelayMs: [5, 1]\nbogus: 1\n');
    const r = await badRun('fields', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    const err = String(r.stderr);
    expect(err).toContain(`soak: scenario ${file} is invalid:`);
    expect(err).toContain(`${file}: cycles: `);
    expect(err).toContain(`${file}: kill.workDelayMs: expected [min, max] with min <= max`);
    expect(err).toContain(`${file}: bogus: unknown field`);
    expect(existsSync(path.join(tmp, 'runs-fields'))).toBe(false);
  });

  it('a scenario file that is not YAML: names the file and the line, exit 3', async () => {
    const file = path.join(tmp, 'bad-yaml.yaml');
    writeFileSync(file, 'name: bad\ncycles: 3\nkill: { workDelayMs: [5, 9]\nseed: 2\n');
    const r = await badRun('yaml', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toMatch(
      new RegExp(
        `^soak: scenario ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(line [345]\\) is not valid YAML: `,
      ),
    );
    expect(existsSync(path.join(tmp, 'runs-yaml'))).toBe(false);
  });

  it('--target nope: exit 3 naming the flag and the known targets', async () => {
    const r = await badRun('target', '--target', 'nope', '--cycles', '1');
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toContain('--target: unknown target "nope" (known targets: process');
    expect(existsSync(path.join(tmp, 'runs-target'))).toBe(false);
  });

  it('a scenario name that does not exist, and --cycles 0: exit 3', async () => {
    const a = await badRun('name', '--scenario', 'no-such-scenario');
    expect(a.exitCode, out(a)).toBe(3);
    expect(String(a.stderr)).toContain('no scenario named "no-such-scenario"');
    const b = await badRun('zero', '--cycles', '0');
    expect(b.exitCode, out(b)).toBe(3);
    expect(String(b.stderr)).toMatch(/default\.yaml is invalid:\n {2}--cycles \(overrides cycles\): /);
    expect(existsSync(path.join(tmp, 'runs-name')) || existsSync(path.join(tmp, 'runs-zero'))).toBe(false);
  });

  it('invalid targetOptions: exit 3 and no half-made run folder left behind', async () => {
    const file = path.join(tmp, 'bad-options.yaml');
    writeFileSync(file, 'name: badopts\ncycles: 1\ntargetOptions:\n  heapKiB: -1\n');
    const r = await badRun('opts', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toContain('targetOptions.heapKiB');
    const runs = path.join(tmp, 'runs-opts');
    expect(
      existsSync(runs) ? readdirSync(runs) : [],
      'a run folder (empty journal, scratch/, latest link) was left behind',
    ).toEqual([]);
  });

  it('invalid targetOptions: the message names the scenario file', async () => {
    const file = path.join(tmp, 'bad-options-2.yaml');
    writeFileSync(file, 'name: badopts\ncycles: 1\ntargetOptions:\n  heapKiB: -1\n');
    const r = await badRun('opts2', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    // Like every other scenario error: "<file>: <dot-path>: <message>" (the progress line naming the file does not count).
    expect(String(r.stderr)).toContain(`${file}: targetOptions.heapKiB: `);
  });

  it('an unknown command: exit 3', async () => {
    const u = await soak('frobnicate');
    expect(u.exitCode, out(u)).toBe(3);
  });
});
