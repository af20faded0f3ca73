// Config error lines have one format, built in one place (core/config-issues.ts): `<file>: <dot-path>: <message>`, an
// unknown key named by its own path, every problem listed. Scenario loading, gate loading, each target's option check
// and the built-in adapter's options all come out in it (a target's problems named with the scenario file).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigIssuesError, dotPath, issueLine, schemaIssues } from '../../harness/core/config-issues.js';
import { ConfigError } from '../../harness/core/errors.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { parseBuiltinOptions } from '../../harness/targets/exec/serve.js';
import { validateTarget } from '../../harness/targets/registry.js';
import { thrown } from '../helpers/thrown.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-config-issues-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('one line per problem', () => {
  it('names the file, the dot-path (or the top level) and the message; a flag names itself', () => {
    expect(dotPath(['byTarget', 'microvm', 'threshold'])).toBe('byTarget.microvm.threshold');
    expect(dotPath(['parts', 3, 'name'])).toBe('parts.3.name');
    expect(issueLine('g.yaml', { path: [], message: 'not valid YAML' })).toBe('g.yaml: (top level): not valid YAML');
    expect(issueLine(undefined, { path: ['a'], message: 'm' })).toBe('a: m');
    expect(issueLine('s.yaml', { path: ['cycles'], message: 'too big', flag: '--cycles' })).toBe(
      '--cycles (overrides cycles): too big',
    );
  });

  it("names an unknown key by its own path, under the checked value's path, and keeps every problem", () => {
    const schema = z.strictObject({ a: z.number(), inner: z.strictObject({ b: z.string() }) });
    const r = schema.safeParse({ a: 'x', inner: { b: 1, typo: 2 }, extra: true });
    expect(r.success).toBe(false);
    const lines = schemaIssues(r.error!.issues, ['targetOptions']).map((i) => issueLine('f.yaml', i));
    expect(lines).toHaveLength(4);
    expect(lines).toContain('f.yaml: targetOptions.extra: unknown field (check the spelling)');
    expect(lines).toContain('f.yaml: targetOptions.inner.typo: unknown field (check the spelling)');
    expect(lines.filter((l) => l.startsWith('f.yaml: targetOptions.a: '))).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('f.yaml: targetOptions.inner.b: '))).toHaveLength(1);
  });
});

describe('every config check speaks it', () => {
  it('a scenario: its header, then each field by path', () => {
    const err = thrown(() => parseScenario('name: s\ncycles: -1\nkill: { bogus: 1 }\n', 's.yaml'));
    expect(err).toBeInstanceOf(ConfigError);
    const [head, ...lines] = err.message.split('\n');
    expect(head).toBe('scenario s.yaml is invalid:');
    expect(lines.some((l) => l.startsWith('  s.yaml: cycles: '))).toBe(true);
    expect(lines).toContain('  s.yaml: kill.bogus: unknown field (check the spelling; see README "Scenario files")');
  });

  it.each([
    ['process', { heapKiB: 0, nope: 1 }, ['targetOptions.nope: unknown option', 'targetOptions.heapKiB: expected']],
    ['microvm', { memoryMiB: 'lots', extra: 1 }, ['targetOptions.memoryMiB: ', 'targetOptions.extra: unknown option']],
    ['exec', { adapterOptions: [] }, ['adapter: target "exec" needs', 'adapterOptions: expected a mapping']],
  ])("target %s's options: every problem named with the scenario file, no rewriting", async (name, options, want) => {
    const err = await validateTarget(name, options, 'x.yaml').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigIssuesError);
    const [head, ...lines] = (err as Error).message.split('\n');
    expect(head).toBe(`scenario x.yaml: ${name} target options are invalid:`);
    expect(lines).toHaveLength(want.length);
    want.forEach((w, i) =>
      expect(lines[i]).toMatch(new RegExp(`^ {2}x\\.yaml: ${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)),
    );
  });

  it("the built-in adapter's options: its own problems and its target's, each under adapterOptions", async () => {
    const err = await parseBuiltinOptions({ target: 'process', targetOptions: { heapKiB: 'big' }, x: 1 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as Error).message.split('\n').slice(1)).toEqual([
      '  adapterOptions.x: unknown option (known: target, targetOptions)',
      '  adapterOptions.targetOptions.heapKiB: expected an integer from 1 to 1048576, got "big"',
    ]);
    await expect(parseBuiltinOptions({ target: 'process', targetOptions: {} })).resolves.toEqual({
      target: 'process',
      targetOptions: {},
    });
  });

  it('a good target passes (negative control of the checks above)', async () => {
    const adapter = path.join(tmp, 'adapter');
    writeFileSync(adapter, '#!/bin/sh\n');
    await expect(validateTarget('process', { heapKiB: 64 }, 'x.yaml')).resolves.toBeUndefined();
    await expect(validateTarget('exec', { adapter, adapterOptions: {} }, 'x.yaml')).resolves.toBeUndefined();
  });
});
