// Issue 32 done-when: a saturated run's terminal verdict, --json, JUnit and job summary carry the saturation warning,
// tested with a real load generator beside the run: 3 x cores busy-loop processes (niced, so the test file running on
// the other vitest worker is not starved; the load average counts them all the same), started before the run and
// killed after it. The test waits until the 1-minute load average (read from /proc/loadavg) is above the core count,
// then asserts the run recorded saturation from its own samples (summary.json machineLoad, its journal's machine-load
// events) rather than assuming it. Gates are the test's own: a timing gate no run can pass (downtime max < 1 ms), a
// correctness gate (no violations) and a timing gate every run passes; the timing gate that fails is "inconclusive
// (saturated)" (exit 2), and fails again with --strict-timing or SOAK_STRICT_TIMING=1 (exit 1). The negative control
// of the rule itself (timingVerdict returning the measured verdict) makes this file fail: see test/gates/timing.test.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MachineLoadEvent } from '../../harness/journal/events.js';
import type { OutputName } from '../../harness/report/output-schemas.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult } from '../helpers/cli.js';
import { parseJunit } from '../helpers/xml.js';
import { validatorFor } from '../helpers/schemas.js';

const CORES = os.availableParallelism();
const LOAD_WAIT_MS = 240_000;
let tmp: string;
let runDir: string;
let run: Result;
const burners: ChildProcess[] = [];

/** `soak ...args` in tmp, CI-style; strict timing off unless `env` says otherwise (the parent's value never leaks in). */
function soak(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return execaNode(cliPath, args, {
    cwd: tmp,
    reject: false,
    timeout: 600_000,
    stdin: 'ignore',
    env: { CI: '1', SOAK_STRICT_TIMING: '', ...env },
  });
}

const load1 = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Parse a CLI's JSON stdout and check it against its schema. */
function validJson(name: OutputName, r: Result): Record<string, unknown> {
  const data = JSON.parse(String(r.stdout)) as Record<string, unknown>;
  expect(validatorFor(name)(data), `${name} --json against schemas/${name}.schema.json`).toEqual([]);
  return data;
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-saturation-'));
  const gates = path.join(tmp, 'gates');
  mkdirSync(gates);
  const gate = (file: string, lines: string[]): void => writeFileSync(path.join(gates, file), lines.join('\n'));
  gate('01-slow.yaml', ['id: 1', 'title: Impossible downtime', 'metric: downtimeMs', 'threshold: max < 1', 'minN: 1']);
  gate('02-atomic.yaml', ['id: 2', 'title: No violations', 'metric: violations', 'threshold: count == 0', 'minN: 1']);
  gate('03-roomy.yaml', ['id: 3', 'title: Roomy downtime', 'metric: downtimeMs', 'threshold: max < 600000', 'minN: 1']);
  for (let i = 0; i < 3 * CORES; i++) {
    // its own process group, so afterAll ends exactly this loop by its id
    burners.push(spawn('nice', ['-n', '19', 'sh', '-c', 'while :; do :; done'], { detached: true, stdio: 'ignore' }));
  }
  const until = Date.now() + LOAD_WAIT_MS;
  while (load1() <= CORES + 0.5) {
    if (Date.now() > until)
      throw new Error(
        `load average still ${load1()} on ${CORES} cores after the load generator ran ${LOAD_WAIT_MS} ms`,
      );
    await sleep(1000);
  }
  run = await soak([
    'run',
    '--cycles',
    '3',
    '--boot-samples',
    '3',
    '--seed',
    '5',
    '--gates-dir',
    gates,
    '--out',
    'runs',
    '--report-dir',
    'reports',
    '--junit',
    'junit.xml',
    '--summary-md',
    'summary.md',
  ]);
  runDir = path.join(
    tmp,
    'runs',
    readdirSync(path.join(tmp, 'runs')).find((d) => d !== 'latest')!,
  );
}, LOAD_WAIT_MS + 600_000);

afterAll(() => {
  for (const b of burners) if (b.pid !== undefined) process.kill(-b.pid, 'SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

describe('a run beside a real load generator', () => {
  it('recorded saturation from its own samples, and every output says so', () => {
    const out = describeResult(run);
    const reportDir = /^report: (.+)\/index\.html$/m.exec(String(run.stdout))?.[1];
    expect(reportDir, out).toBeDefined();
    const summary = JSON.parse(readFileSync(path.join(reportDir!, 'summary.json'), 'utf8')) as {
      machineLoad: { samples: number; cores: number; load1: { p50: number }; saturated: boolean };
      timing: { saturated: boolean; failedTiming: number[]; strict: boolean };
      gates: Array<{ id: number; verdict: string; saturated?: { measured: string } }>;
    };
    const samples = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l.includes('"machine-load"'))
      .map((l) => JSON.parse(l) as MachineLoadEvent);
    expect(samples.length, out).toBeGreaterThan(0);
    expect(summary.machineLoad).toMatchObject({ samples: samples.length, cores: CORES, saturated: true });
    expect(summary.machineLoad.load1.p50).toBeGreaterThan(CORES);
    expect(summary.timing).toEqual(expect.objectContaining({ saturated: true, strict: false, failedTiming: [1] }));
    expect(summary.gates.map((g) => [g.id, g.verdict, g.saturated?.measured])).toEqual([
      [1, 'inconclusive', 'fail'],
      [2, 'pass', undefined],
      [3, 'pass', 'pass'],
    ]);

    // the terminal: exit 2, a warning with the load, steal and cores, the verdict line saying so
    expect(run.exitCode, out).toBe(2);
    const stdout = String(run.stdout);
    const p50 = summary.machineLoad.load1.p50;
    const warning = /^(warning: [^]*?)\nverdict: /m.exec(stdout)?.[1]?.replace(/\n/g, ' ');
    expect(warning, out).toMatch(
      new RegExp(
        `^warning: Measured on a saturated machine: load average p50 ${p50} \\(max [\\d.]+\\) on ${CORES} cores, CPU steal p50 [\\d.]+% `,
      ),
    );
    expect(stdout).toMatch(
      new RegExp(
        `^verdict: INCONCLUSIVE AT 95% \\(2 pass, 0 fail, 1 inconclusive \\(1 saturated\\), 0 insufficient of 3 gates; SATURATED machine: load p50 ${p50} on ${CORES} cores, CPU steal p50 [\\d.]+%: #1 inconclusive \\(saturated\\)\\)$`,
        'm',
      ),
    );
    expect(stdout).toMatch(/^01 Impossible downtime: inconclusive \(saturated\)$/m);
    // off a terminal the table is fitted to 100 columns
    for (const line of stdout
      .split('\n')
      .filter((l) => !l.startsWith('verdict:') && !l.startsWith('run folder:') && !l.startsWith('report:')))
      expect(Array.from(line).length, line).toBeLessThanOrEqual(100);
    // the boot samples showed their progress (CI: a line per 10%)
    expect(String(run.stderr)).toMatch(/^progress: 3\/3 boot samples, boot p95 [\d.]+ ms, elapsed \d+s, ETA 0s$/m);

    // JUnit: the timing gate skipped as inconclusive (saturated) with the figures; the suite's properties and output
    const j = parseJunit(readFileSync(path.join(tmp, 'junit.xml'), 'utf8'));
    expect(j.failures).toBe(0);
    expect(j.cases[0]!.skipped).toMatch(
      new RegExp(
        `^inconclusive \\(saturated\\): .*measured on a saturated machine: load average p50 ${p50} .* on ${CORES} cores, CPU steal p50`,
      ),
    );
    expect(j.properties).toMatchObject({ machineSaturated: 'true', cores: String(CORES), load1P50: String(p50) });
    expect(j.systemOut).toMatch(
      /^warning: Measured on a saturated machine: .*Timing gate 1 \(Impossible downtime\) failed its bar and is reported inconclusive \(saturated\)/,
    );

    // the job summary: a GitHub warning above the table, the gate's verdict
    const md = readFileSync(path.join(tmp, 'summary.md'), 'utf8');
    expect(md).toContain('> [!WARNING]');
    expect(md).toMatch(
      new RegExp(
        `^> \\*\\*Measured on a saturated machine: load average p50 ${p50} .* on ${CORES} cores, CPU steal p50`,
        'm',
      ),
    );
    expect(md).toMatch(/^\| ⚠️ \| 1 \| Impossible downtime \|.*\| inconclusive \(saturated\) \|$/m);
  });

  it('--json says so (schema-valid); --strict-timing and SOAK_STRICT_TIMING=1 judge timing as measured (exit 1)', async () => {
    const gatesDir = path.join(tmp, 'gates');
    const [json, strict, envStrict, badEnv] = await Promise.all([
      soak(['gates', runDir, '--gates-dir', gatesDir, '--json']),
      soak(['gates', runDir, '--gates-dir', gatesDir, '--strict-timing']),
      soak(['gates', runDir, '--gates-dir', gatesDir, '--json'], { SOAK_STRICT_TIMING: '1' }),
      soak(['gates', runDir, '--gates-dir', gatesDir], { SOAK_STRICT_TIMING: 'yes' }),
    ]);
    expect(json.exitCode, describeResult(json)).toBe(2);
    const data = validJson('gates', json) as {
      verdict: string;
      timing: Record<string, unknown>;
      gates: Array<Record<string, unknown>>;
    };
    expect(data.verdict).toBe('inconclusive');
    expect(data.timing).toMatchObject({ saturated: true, strict: false, failedTiming: [1], load: { cores: CORES } });
    expect(String(data.timing['warning'])).toMatch(/^Measured on a saturated machine: load average p50 /);
    expect(data.gates[0]).toMatchObject({ verdict: 'inconclusive', saturated: { measured: 'fail' } });
    expect(data.gates[1]!['saturated']).toBeUndefined();

    expect(strict.exitCode, describeResult(strict)).toBe(1);
    expect(String(strict.stdout)).toMatch(
      /^verdict: FAIL \(.*failed: #1 slow; SATURATED machine: .*timing judged as measured \(--strict-timing\): #1 failed\)$/m,
    );
    expect(envStrict.exitCode, describeResult(envStrict)).toBe(1);
    expect(validJson('gates', envStrict)).toMatchObject({ verdict: 'fail', timing: { strict: true } });
    expect(badEnv.exitCode, describeResult(badEnv)).toBe(3);
    expect(String(badEnv.stderr).trim()).toBe('soak: SOAK_STRICT_TIMING: expected 1 or 0, got "yes"');
  });
});
