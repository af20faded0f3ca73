// Scenario files: defaults, command-line overrides, malformed YAML and invalid fields (all reported at once, with
// dot-paths, exit code 3), and resolving --scenario names and paths.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../harness/core/errors.js';
import { loadScenario, parseScenario, resolveScenarioPath } from '../../harness/scenario/scenario.js';
import { parseMicrovmTargetOptions } from '../../harness/targets/microvm/options.js';
import { thrown } from '../helpers/thrown.js';
import { withFields } from '../helpers/match.js';
import { repoRoot } from '../helpers/paths.js';

describe('parseScenario', () => {
  it('fills every default from a file holding only a name', () => {
    expect(parseScenario('name: tiny\n', 'tiny.yaml')).toEqual({
      name: 'tiny',
      description: '',
      target: 'process',
      cycles: 30,
      seed: 1,
      bootSamples: 0,
      budgetS: 0,
      stepMs: 5,
      checkpoint: { everyMs: 100, timeoutMs: 30_000 },
      kill: {
        phases: { work: 1, checkpoint: 0, restore: 0 },
        workDelayMs: [150, 500],
        checkpointDelayMs: [0, 3],
        restoreDelayMs: [0, 30],
      },
      resumeTimeoutMs: 30_000,
      hostTimeoutMs: 10_000,
      skewMs: 0,
      standby: false,
      sessions: 1,
      negativeControl: false,
      session: 'continuous',
      injectRestoreDelayMs: 0,
      faults: [],
      targetOptions: {},
    });
  });

  it('fills nested defaults inside a partly given block', () => {
    const s = parseScenario('name: x\nkill:\n  phases: { checkpoint: 2 }\n  workDelayMs: [10, 20]\n', 'x.yaml');
    expect(s.kill).toEqual({
      phases: { work: 1, checkpoint: 2, restore: 0 },
      workDelayMs: [10, 20],
      checkpointDelayMs: [0, 3],
      restoreDelayMs: [0, 30],
    });
  });

  it('command-line overrides win over file values; undefined overrides leave them alone', () => {
    const text = 'name: x\ntarget: process\ncycles: 80\nseed: 1\nskewMs: 0\n';
    const s = parseScenario(text, 'x.yaml', { cycles: 8, seed: 7, skewMs: 40, target: undefined, budgetS: 12 });
    expect([s.target, s.cycles, s.seed, s.skewMs, s.budgetS]).toEqual(['process', 8, 7, 40, 12]);
  });

  it('overrides are validated like file values, and named by their flag', () => {
    const err = thrown(() => parseScenario('name: x\n', 'x.yaml', { cycles: 0, seed: -3 }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain('  --cycles (overrides cycles): ');
    expect(err.message).toContain('  --seed (overrides seed): ');
  });

  it('malformed YAML: ConfigError naming the file and the line, exit code 3, cause kept', () => {
    const err = thrown(() =>
      parseScenario('name: x\ncycles: 3\nkill:\n  workDelayMs: [1, 2\nseed: 2\n', '/s/bad.yaml'),
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toHaveProperty('exitCode', 3);
    expect(err.message).toMatch(/^scenario \/s\/bad\.yaml \(line \d+\) is not valid YAML: /);
    const line = Number(/\(line (\d+)\)/.exec(err.message)![1]);
    expect(line).toBeGreaterThanOrEqual(4);
    expect(line).toBeLessThanOrEqual(5);
    expect(err.cause).toBeDefined();
  });

  it('a YAML document that is not a mapping is rejected', () => {
    for (const text of ['- a\n- b\n', '42\n', '']) {
      const err = thrown(() => parseScenario(text, 'list.yaml'));
      expect(err).toBeInstanceOf(ConfigError);
      expect(err.message).toBe('scenario list.yaml must be a YAML mapping with at least a "name" field');
    }
  });

  it('reports ALL bad fields in one ConfigError, each line starting with file and dot-path', () => {
    const text = [
      'name: x',
      'cycles: -1',
      'stepMs: fast',
      'kill:',
      '  workDelayMs: [5, 1]',
      '  phases: { work: 0 }',
      '  bogusInKill: 2',
      'checkpoint: { everyMs: 0 }',
      'bogus: 1',
      '',
    ].join('\n');
    const err = thrown(() => parseScenario(text, 'many.yaml'));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toHaveProperty('exitCode', 3);
    const lines = err.message.split('\n');
    expect(lines[0]).toBe('scenario many.yaml is invalid:');
    const fields = lines.slice(1).map((l) => /^ {2}many\.yaml: ([^:]+): /.exec(l)?.[1]);
    expect(fields.sort()).toEqual([
      'bogus',
      'checkpoint.everyMs',
      'cycles',
      'kill.bogusInKill',
      'kill.phases',
      'kill.workDelayMs',
      'stepMs',
    ]);
    expect(err.message).toContain('kill.workDelayMs: expected [min, max] with min <= max');
    expect(err.message).toContain('kill.phases: at least one phase weight must be > 0');
    expect(err.message).toMatch(/: kill\.bogusInKill: unknown field/);
    expect(err.message).toMatch(/: bogus: unknown field/);
  });

  it('standby: true, false or pool; anything else is named by its field', () => {
    expect(parseScenario('name: p\nstandby: pool\n', 'p.yaml').standby).toBe('pool');
    expect(parseScenario('name: p\nstandby: true\n', 'p.yaml').standby).toBe(true);
    expect(() => parseScenario('name: p\nstandby: warm\n', 'p.yaml')).toThrow(/p\.yaml: standby: /);
  });

  it('a missing name is reported by its field', () => {
    expect(() => parseScenario('cycles: 3\n', 'noname.yaml')).toThrow(/noname\.yaml: name: /);
  });

  it('a negative range bound is reported with its index in the dot-path', () => {
    expect(() => parseScenario('name: x\nkill: { restoreDelayMs: [-1, 4] }\n', 'r.yaml')).toThrow(
      /r\.yaml: kill\.restoreDelayMs\.0: /,
    );
  });

  it('checkpoint.timeoutMs: its own bound, kept beside everyMs; zero, fractional or over an hour is named', () => {
    expect(parseScenario('name: x\ncheckpoint: { everyMs: 50 }\n', 'c.yaml').checkpoint).toEqual({
      everyMs: 50,
      timeoutMs: 30_000,
    });
    expect(parseScenario('name: x\ncheckpoint: { timeoutMs: 500 }\n', 'c.yaml').checkpoint.timeoutMs).toBe(500);
    for (const bad of ['0', '-5', '2.5', '3600001', '"1s"'])
      expect(() => parseScenario(`name: x\ncheckpoint: { timeoutMs: ${bad} }\n`, 'c.yaml'), bad).toThrow(
        /c\.yaml: checkpoint\.timeoutMs: /,
      );
  });

  it('every shipped scenario keeps the default checkpoint bound (30 s: ~25x the slowest checkpoint seen here)', () => {
    for (const name of readdirSync(path.join(repoRoot, 'scenarios')).filter((f) => f.endsWith('.yaml')))
      expect(loadScenario(name.replace(/\.yaml$/, '')).scenario.checkpoint.timeoutMs, name).toBe(30_000);
  });
});

describe('shipped micro-VM scenarios', () => {
  const shipped = readdirSync(path.join(repoRoot, 'scenarios'))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => loadScenario(f.replace(/\.yaml$/, '')).scenario);

  it("load, and their targetOptions pass the micro-VM target's own validation", () => {
    const microvm = shipped.filter((s) => s.target === 'microvm');
    expect(microvm.map((s) => s.name)).toEqual(expect.arrayContaining(['ram-only', 'ram-only-1g']));
    for (const s of microvm) expect(() => parseMicrovmTargetOptions(s.targetOptions), s.name).not.toThrow();
  });

  it('ram-only-1g is ram-only with a 1 GiB guest (issue 37: the size of the sessions the page checkpoints)', () => {
    const one = (name: string) => shipped.find((s) => s.name === name)!;
    const { name: _a, description: _b, targetOptions: big, ...rest1g } = one('ram-only-1g');
    const { name: _c, description: _d, targetOptions: small, ...rest } = one('ram-only');
    expect(rest1g).toEqual(rest);
    expect(big).toEqual({ ...small, memoryMiB: 1024 });
    expect(parseMicrovmTargetOptions(big).opts).toMatchObject({ memoryMiB: 1024, disk: false, ramCapture: 'stream' });
  });
});

describe('resolveScenarioPath and loadScenario', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'soak-scenario-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finds a name in scenarios/ and loads the shipped default', () => {
    const file = resolveScenarioPath('default');
    expect(file.endsWith(`${path.sep}scenarios${path.sep}default.yaml`)).toBe(true);
    const { scenario } = loadScenario('default', { cycles: 3 });
    expect([scenario.name, scenario.target, scenario.cycles]).toEqual(['default', 'process', 3]);
  });

  it('a missing name is a ConfigError (exit 3) naming it and where it looked', () => {
    const err = thrown(() => resolveScenarioPath('no-such-scenario'));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err).toHaveProperty('exitCode', 3);
    expect(err.message).toContain('no scenario named "no-such-scenario"');
    expect(err.message).toContain(`scenarios${path.sep}no-such-scenario.yaml`);
  });

  it('a missing path is a ConfigError naming the absolute path', () => {
    const missing = path.join(dir, 'missing.yaml');
    expect(() => resolveScenarioPath(missing)).toThrow(`scenario file ${missing} does not exist`);
  });

  it('loads a file by path and names it in errors', () => {
    const good = path.join(dir, 'good.yaml');
    writeFileSync(good, 'name: mine\ncycles: 5\n');
    expect(loadScenario(good)).toEqual({ scenario: withFields({ name: 'mine', cycles: 5 }), file: good });
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: mine\ncycles: 1.5\n');
    expect(() => loadScenario(bad)).toThrow(`${bad}: cycles:`);
  });
});
