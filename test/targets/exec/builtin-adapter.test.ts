// The process target through the public protocol (adapters/builtin/adapter.mjs, an external program) against the same
// target in the session host, same seed: the same kill plan (phase of every cycle), the same verdicts (cycle counts,
// violations, resumed count); timings naturally differ. Then its conformance battery through the adapter.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, soakIn } from '../../helpers/cli.js';
import { expectOnlyTimingFailures } from '../../helpers/gates.js';
import { repoRoot } from '../../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-exec-builtin-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 380_000);
const adapter = path.join(repoRoot, 'adapters', 'builtin', 'adapter.mjs');

interface Summary {
  target: string;
  cycles: { total: number; resumed: number; failed: number; indeterminate: number };
  killResume: { successes: number; trials: number };
  violations: number;
  environment: { target: Record<string, unknown> };
}

const common =
  'cycles: 8\nseed: 7\nstepMs: 5\ncheckpoint: { everyMs: 100 }\nresumeTimeoutMs: 60000\n' +
  'kill: { phases: { work: 2, checkpoint: 1, restore: 1 }, workDelayMs: [100, 400], checkpointDelayMs: [0, 3], restoreDelayMs: [0, 50] }\n';

/** Run a scenario; its summary and every cycle's (aimed phase, outcome, violation codes). */
async function soakScenario(name: string, target: string) {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\n${target}${common}`);
  const r = await soak('run', '--scenario', file);
  const dir = path.join(tmp, 'reports', `${new Date().toISOString().slice(0, 10)}-${name}`);
  const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as Summary;
  const runDir = realpathSync(path.join(tmp, 'runs', 'latest'));
  const journal = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const plan = journal.filter((e) => e.type === 'cycle-start').map((e) => `${String(e.cycle)}:${String(e.phase)}`);
  const verdicts = journal
    .filter((e) => e.type === 'cycle')
    .map(
      (e) =>
        `${String(e.cycle)}:${String(e.outcome)}:${(e.violations as { code: string }[]).map((v) => v.code).join(',')}`,
    );
  return { r, summary, plan, verdicts, runDir };
}

describe('the process target as an external adapter (adapters/builtin)', () => {
  it('same seed: same kill plan and the same verdicts as in the session host', async () => {
    const inHost = await soakScenario('builtin-inhost', 'target: process\n');
    const viaAdapter = await soakScenario(
      'builtin-adapter',
      `target: exec\nadapter: ${adapter}\nadapterOptions: { target: process }\n`,
    );
    expect(inHost.summary.target).toBe('process');
    expect(viaAdapter.summary.target, describeResult(viaAdapter.r)).toBe('exec');
    expect(viaAdapter.summary.environment.target).toMatchObject({ kind: 'exec', runtimeId: 'process' });
    expect(viaAdapter.plan).toEqual(inHost.plan);
    expect(viaAdapter.plan).toHaveLength(8);
    expect(viaAdapter.verdicts, describeResult(viaAdapter.r)).toEqual(inHost.verdicts);
    for (const s of [inHost.summary, viaAdapter.summary]) {
      expect(s.cycles).toEqual({ total: 8, resumed: 8, failed: 0, indeterminate: 0 });
      expect(s.violations).toBe(0);
      expect(s.killResume).toMatchObject({ successes: 8, trials: 8 });
    }
    // Exit codes may differ by timing gates alone (a latency gate can fail solidly below its minimum n under load);
    // no other gate may fail in either run.
    for (const run of [inHost, viaAdapter])
      await expectOnlyTimingFailures(run.r.exitCode, run.runDir, describeResult(run.r));
  }, 800_000);

  it('negative control: the skewed checkpoint through the adapter is caught like in the host (exit 1)', async () => {
    const r = await soakScenario(
      'builtin-skew',
      `target: exec\nadapter: ${adapter}\nadapterOptions: { target: process }\nnegativeControl: true\nskewMs: 40\n`,
    );
    expect(r.summary.violations, describeResult(r.r)).toBeGreaterThan(0);
  }, 400_000);

  it('refuses an unknown built-in target with a one-line reason naming the option', async () => {
    const file = path.join(tmp, 'bad.yaml');
    writeFileSync(file, `name: bad\ntarget: exec\nadapter: ${adapter}\nadapterOptions: { target: nope }\n${common}`);
    const r = await soak('run', '--scenario', file);
    expect(r.exitCode, describeResult(r)).not.toBe(0);
    expect(r.stderr).toContain('adapterOptions.target');
  });
});
