// End to end, real host processes: `soak run --until-decided` stops after the cycle at which the verdict is decided
// (the skew negative control: at the first violation, gate 2 failed), journals why on run-end and says so; out of
// budget undecided, its gates are inconclusive, never a pass; without the flag the same scenario runs every cycle.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent, RunEndEvent } from '../../harness/journal/events.js';
import type { GateResult } from '../../harness/gates/types.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;
const soak = soakIn(() => tmp, 300_000);

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-until-decided-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function runEnd(runDir: string): RunEndEvent {
  const events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);
  const end = events.findLast((e) => e.type === 'run-end');
  if (end?.type !== 'run-end') throw new Error('no run-end');
  return end;
}

interface RunJson {
  runDir: string;
  verdict: string;
  gates: GateResult[];
  summary: {
    cycles: { total: number };
    runStatus?: { untilDecided?: boolean; decided?: { cycle: number; by: string } };
  };
}

describe('soak run --until-decided', () => {
  it('stops the skew negative control at its first violation, journals why, and judges on the anytime decisions', async () => {
    const run = await soak(
      ...['run', '--scenario', 'skew-control', '--until-decided', '--max-cycles', '6'],
      ...['--out', 'runs', '--no-report', '--json'],
    );
    expect(run.exitCode, describeResult(run)).toBe(0); // a negative control passes when the checker caught the fault
    const out = JSON.parse(run.stdout) as RunJson;
    const end = runEnd(out.runDir);
    expect(end.decided?.by).toBe('gate 2 (checkpoint-atomicity) failed');
    expect(end.cycles).toBe(end.decided?.cycle);
    expect(end.cycles).toBeLessThan(6);
    expect(out.summary.runStatus).toMatchObject({ untilDecided: true, decided: end.decided });
    const g2 = out.gates.find((g) => g.id === 2);
    expect(g2).toMatchObject({ verdict: 'fail', fixedN: 'fail', anytime: { decision: 'fail', method: 'gate-rule' } });
    // no gate is a pass that its anytime decision does not support
    for (const g of out.gates) if (g.verdict === 'pass') expect(g.anytime?.decision).toBe('pass');
  }, 120_000);

  it("runs every cycle without the flag (the control: the stop is the flag's doing)", async () => {
    const run = await soak(
      ...['run', '--scenario', 'skew-control', '--cycles', '3', '--out', 'runs', '--no-report', '--json'],
    );
    expect(run.exitCode, describeResult(run)).toBe(0);
    const out = JSON.parse(run.stdout) as RunJson;
    expect(runEnd(out.runDir)).toMatchObject({ status: 'complete', cycles: 3 });
    expect(runEnd(out.runDir).decided).toBeUndefined();
    expect(out.summary.runStatus?.untilDecided).toBeUndefined();
  }, 120_000);

  it('out of budget undecided: the gates are inconclusive, never a pass, and the output says so', async () => {
    const run = await soak(
      ...['run', '--until-decided', '--max-cycles', '2', '--boot-samples', '0', '--seed', '5'],
      ...['--out', 'runs', '--no-report'],
    );
    expect([1, 2], describeResult(run)).toContain(run.exitCode);
    expect(run.stdout).toContain('not decided within the budget: every undecided gate is inconclusive');
    const runDir = /^run folder: (.*) \(complete/m.exec(run.stdout)?.[1] ?? '';
    expect(runEnd(runDir)).toMatchObject({ status: 'complete', cycles: 2 });
    expect(runEnd(runDir).decided).toBeUndefined();
    expect(run.stdout).not.toMatch(/^0[146] [^\n]*: pass/m); // rate and quantile gates cannot be decided in 2 cycles
  }, 120_000);

  it('refuses a budget flag without --until-decided, and a bad duration, with exit 3 and one line', async () => {
    const a = await soak('run', '--max-cycles', '5', '--out', 'runs', '--no-report');
    expect(a.exitCode, describeResult(a)).toBe(3);
    expect(a.stderr).toContain('--max-cycles and --max-duration are the budget of --until-decided');
    const b = await soak('run', '--until-decided', '--max-duration', '5 parsecs', '--out', 'runs', '--no-report');
    expect(b.exitCode, describeResult(b)).toBe(3);
    expect(b.stderr).toContain('--max-duration: expected a duration such as 90s, 15m or 2h, got "5 parsecs"');
    expect(b.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);
});
