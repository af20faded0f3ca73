// Gate files: the shipped set loads; malformed files are all reported at once, each line starting with file path and field.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../harness/core/errors.js';
import { loadGates } from '../../harness/gates/evaluate.js';
import type { Summary } from '../../harness/analysis/summary.js';

function dirWith(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'gates-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
  return dir;
}

function loadError(dir: string): ConfigError {
  try {
    loadGates(dir);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected loadGates to throw');
}

const good = 'id: 1\ntitle: Boot\nmetric: bootMs\nthreshold: p95 < 1000\nminN: 1\n';

describe('loadGates', () => {
  it('loads the 10 shipped gates in order, thresholds parsed', () => {
    const gates = loadGates();
    expect(gates.map((g) => g.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(gates.map((g) => `${g.metric}: ${g.threshold.source}`)).toEqual([
      'bootMs: p95 < 1000',
      'violations: count == 0',
      'checkpointPauseMs: p95 < 50',
      'downtimeMs: p95 < 1000',
      'dedup: ratio >= 2',
      'killResume: wilson95.lo >= 0.95',
      'lossBeyondCheckpoint: count == 0',
      'tornCheckpointUnsafe: count == 0',
      'effectsExactlyOnce: wilson95.lo >= 0.99',
      'promisedStateKept: failures == 0',
    ]);
    expect(gates[5]?.threshold).toEqual({
      source: 'wilson95.lo >= 0.95',
      stat: { kind: 'wilson', level: 95, side: 'lo' },
      op: '>=',
      bound: 0.95,
    });
    expect(gates[0]?.name).toBe('boot-time');
    expect(gates.every((g) => g.description.length > 0)).toBe(true);
  });

  it('reports a bad expression, an id mismatch and a missing field, in three files, in one error', () => {
    const dir = dirWith({
      '01-boot.yaml': good.replace('p95 < 1000', 'p95 <'),
      '02-atomicity.yaml': 'id: 3\ntitle: Atomicity\nmetric: violations\nthreshold: count == 0\nminN: 30\n',
      '03-pause.yaml': 'id: 3\ntitle: Pause\nmetric: checkpointPauseMs\nthreshold: p95 < 50\n',
    });
    const err = loadError(dir);
    const lines = err.message.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(new RegExp(`^${path.join(dir, '01-boot.yaml')}: threshold: cannot parse "p95 <"`));
    expect(lines[1]).toBe(
      `${path.join(dir, '02-atomicity.yaml')}: id: is 3 but the file name says 02; make them equal`,
    );
    expect(lines[2]).toMatch(new RegExp(`^${path.join(dir, '03-pause.yaml')}: minN: `));
    expect(err.exitCode).toBe(3);
  });

  it('reports several problems within one file, and a stat the metric does not have', () => {
    const dir = dirWith({
      '06-kr.yaml': 'id: 6\ntitle: ""\nmetric: killResume\nthreshold: p95 < 3\nminN: 0\nextra: 1\n',
      '07-x.yaml': 'id: 7\ntitle: X\nmetric: noSuchMetric\nthreshold: count == 0\nminN: 1\n',
      '08-w.yaml': 'id: 8\ntitle: W\nmetric: tornCheckpoint\nthreshold: wilson05.lo >= 0.9\nminN: 1\n',
      '09-q.yaml': 'id: 9\ntitle: Q\nmetric: downtimeMs\nthreshold: p97 < 900\nminN: 1\n',
    });
    const msg = loadError(dir).message;
    expect(msg).toMatch(/06-kr\.yaml: title: /);
    expect(msg).toMatch(/06-kr\.yaml: minN: /);
    expect(msg).toMatch(/06-kr\.yaml: extra: unknown field/); // an unknown key is named by its own path
    expect(msg).toMatch(/06-kr\.yaml: threshold: stat "p95" is not available for metric "killResume" \(rate\)/);
    expect(msg).toMatch(/07-x\.yaml: metric: /);
    expect(msg).toMatch(
      /08-w\.yaml: threshold: cannot parse "wilson05\.lo >= 0\.9": "wilson05\.lo" is not a statistic/,
    );
    // a quantile the summary does not keep: the distribution's own list
    expect(msg).toContain(
      '09-q.yaml: threshold: stat "p97" is not available for metric "downtimeMs" (distribution); use one of: p50, p90, p95, p99, min, max, mean',
    );
  });

  it('rejects bad file names, invalid YAML, duplicate ids and an empty folder', () => {
    const msg = loadError(
      dirWith({ 'boot.yaml': good, '01-a.yaml': good, '01-b.yaml': good, '02-c.yaml': 'id: [2\n' }),
    ).message;
    expect(msg).toMatch(/boot\.yaml: \(file name\): must be NN-name\.yaml/);
    expect(msg).toMatch(/02-c\.yaml: \(top level\): not valid YAML \(line \d+\)/);
    expect(msg).toMatch(/01-b\.yaml: id: 1 is also used by .*01-a\.yaml/);
    expect(() => loadGates(dirWith({}))).toThrow(/no gate files/);
    expect(() => loadGates(path.join(tmpdir(), 'no-such-gates-dir-xyz'))).toThrow(ConfigError);
  });
});

describe('per-target overrides (byTarget)', () => {
  const withOverride = `${good}byTarget:\n  microvm: { threshold: "p95 < 9000", minN: 3 }\n  slow: { minN: 7 }\n`;

  it('parses an override threshold and inherits what it leaves out', () => {
    const [g] = loadGates(dirWith({ '01-boot.yaml': withOverride }));
    expect(g?.byTarget.microvm).toMatchObject({
      minN: 3,
      threshold: { stat: { kind: 'quantile', q: 0.95 }, op: '<', bound: 9000 },
    });
    expect(g?.byTarget.slow).toMatchObject({ minN: 7, threshold: { bound: 1000 } });
  });

  it('judges a run by the override of its own target only', async () => {
    const { evaluateGate } = await import('../../harness/gates/evaluate.js');
    const [g] = loadGates(dirWith({ '01-boot.yaml': withOverride }));
    // 60 boots of 4000-5000 ms: enough for a one-sided 95% upper bound on p95 (n >= 59), whatever the file's minN says.
    const samples = Array.from({ length: 60 }, (_, i) => 4000 + (1000 * i) / 59);
    const dist = { n: 60, min: 4000, p50: 4500, p90: 4900, p95: 4950, p99: 5000, max: 5000, mean: 4500 };
    const evidence = { samples: { bootMs: samples } };
    expect(evaluateGate(g!, { target: 'microvm', bootMs: dist }, evidence).verdict).toBe('pass');
    expect(evaluateGate(g!, { target: 'process', bootMs: dist }, evidence)).toMatchObject({
      verdict: 'fail',
      solid: true,
    });
  });

  it('keys an exec run on the runtime its adapter declared (runtimeId), else on the target name', async () => {
    const { byTargetKey, evaluateGate } = await import('../../harness/gates/evaluate.js');
    const [g] = loadGates(dirWith({ '01-boot.yaml': `${good}byTarget:\n  gvisor: { threshold: "p95 < 9000" }\n` }));
    const samples = Array.from({ length: 60 }, (_, i) => 4000 + (1000 * i) / 59);
    const dist = { n: 60, min: 4000, p50: 4500, p90: 4900, p95: 4950, p99: 5000, max: 5000, mean: 4500 };
    const run = (runtimeId: string): Partial<Summary> => ({
      target: 'exec',
      bootMs: dist,
      environment: { target: { kind: 'exec', runtimeId } } as unknown as Summary['environment'],
    });
    const gvisorRun = run('gvisor');
    const otherRun = run('example');
    expect(byTargetKey(g!, gvisorRun)).toBe('gvisor');
    expect(byTargetKey(g!, otherRun)).toBeUndefined();
    expect(evaluateGate(g!, gvisorRun, { samples: { bootMs: samples } }).verdict).toBe('pass');
    // negative control: an adapter declaring another runtime gets the default bar, which these boots fail
    expect(evaluateGate(g!, otherRun, { samples: { bootMs: samples } }).verdict).toBe('fail');
  });

  it('says when an exec runtime is judged on the default timing bar, and only then', async () => {
    const { evaluateGate } = await import('../../harness/gates/evaluate.js');
    const [g] = loadGates(dirWith({ '01-boot.yaml': `${good}byTarget:\n  gvisor: { threshold: "p95 < 9000" }\n` }));
    const dist = { n: 60, min: 400, p50: 450, p90: 490, p95: 495, p99: 500, max: 500, mean: 450 };
    const run = (target: string, runtimeId?: string): Partial<Summary> => ({
      target,
      bootMs: dist,
      environment: { target: { kind: target, runtimeId } } as unknown as Summary['environment'],
    });
    const note = (s: Partial<Summary>): string => evaluateGate(g!, s, {}).note;
    expect(note(run('exec', 'firecrackerish'))).toMatch(
      /bar not set for runtime firecrackerish: judged on the default .*byTarget\.firecrackerish in 01-boot\.yaml/,
    );
    expect(note(run('exec'))).toMatch(/bar not set for runtime exec/);
    expect(note(run('exec', 'gvisor'))).not.toMatch(/bar not set/);
    expect(note(run('process'))).not.toMatch(/bar not set/);
  });

  it('reports a bad override threshold with its dot-path', () => {
    const err = loadError(dirWith({ '01-boot.yaml': `${good}byTarget:\n  microvm: { threshold: "p95 <" }\n` }));
    expect(err.message).toMatch(/01-boot\.yaml: byTarget\.microvm\.threshold: /);
  });
});
