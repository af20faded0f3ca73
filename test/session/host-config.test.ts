// A session host validates its one argument (the runner's config) before it acts: the real host, spawned with a bad
// config, exits 3 with one line naming the field (to the runner as its error message, to its log without a stack);
// the config the runner builds from a real scenario is accepted (a describe-mode host reports its target), checked
// without loading zod.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { hostConfig } from '../../harness/run/host-journal.js';
import { runPaths } from '../../harness/run/run-folder.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { parseHostConfig, type HostConfig } from '../../harness/session/protocol.js';
import { fixturePath, repoRoot } from '../helpers/paths.js';

const hostMain = path.join(repoRoot, 'dist', 'harness', 'session', 'host-main.js');
const dir = mkdtempSync(path.join(tmpdir(), 'soak-host-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config the runner would send, in describe mode (a host that skipped validation would describe and exit 0). */
function good(): HostConfig {
  const { scenario } = loadScenario('default');
  return { ...hostConfig(scenario, runPaths(dir)), mode: 'describe' };
}

/**
 * Spawn the built host with `arg` as its argument: its exit code, its stdout messages, its log (stderr) and the
 * packages it loaded (an import trace on stderr, kept out of `log`).
 */
async function spawnHost(
  arg: string | undefined,
): Promise<{ exitCode?: number; messages: unknown[]; log: string; packages: string[] }> {
  const r = await execaNode(hostMain, arg === undefined ? [] : [arg], {
    nodeOptions: ['--import', fixturePath('import-trace', 'register.mjs')],
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
  });
  const messages = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
  const lines = r.stderr.split('\n');
  return {
    exitCode: r.exitCode,
    messages,
    log: lines.filter((l) => !l.startsWith('import ')).join('\n'),
    packages: lines.filter((l) => l.startsWith('import ')),
  };
}

const without = (key: keyof HostConfig): string => {
  const { [key]: _gone, ...rest } = good();
  return JSON.stringify(rest);
};

describe('session host config', () => {
  it('accepts the config the runner builds from a scenario: a describe-mode host reports its target', async () => {
    const r = await spawnHost(JSON.stringify(good()));
    expect(r.exitCode).toBe(0);
    expect(r.messages).toEqual([expect.objectContaining({ ev: 'target', live: false })]);
    // and checks it without zod, whose import a process-target host must not pay (a resume's downtime counts it)
    expect(r.packages.filter((p) => p.includes('/node_modules/zod/'))).toEqual([]);
    expect(r.packages.length).toBeGreaterThan(0); // the trace works: the host loads lz4-napi
  });

  const cases: [what: string, arg: string | undefined, line: string][] = [
    [
      'a number sent as a string',
      JSON.stringify({ ...good(), stepMs: '5' }),
      'stepMs: expected a number of ms > 0 and <= 2147483647, got "5"',
    ],
    ['a missing folder', without('storeDir'), 'storeDir: expected a non-empty string, got nothing (missing)'],
    [
      'an unknown mode',
      JSON.stringify({ ...good(), mode: 'explode' }),
      'mode: expected one of "boot", "restore", "describe", "standby", "pool", "clone", got "explode"',
    ],
    ['a misspelt field', JSON.stringify({ ...good(), skewMS: 0 }), 'skewMS: unknown field (known: mode, target, '],
    [
      'a negative delay',
      JSON.stringify({ ...good(), injectRestoreDelayMs: -1 }),
      'injectRestoreDelayMs: expected a number of ms >= 0 and <= 2147483647, got -1',
    ],
    ['an inherited name', '{"__proto__": 1, "toString": 2}', 'mode: expected one of'],
    ['not an object', '[1, 2]', '(top level): expected an object, got [1,2]'],
    ['not JSON', '{mode: boot}', '(top level): not JSON'],
    ['no argument', undefined, '(top level): not JSON'],
  ];
  it.concurrent.each(cases)('refuses %s: exit 3, one line naming the field', async (_what, arg, line) => {
    const r = await spawnHost(arg);
    expect(r.exitCode).toBe(3);
    expect(r.messages).toHaveLength(1);
    const msg = r.messages[0] as { ev: string; message: string; exitCode: number };
    expect(msg).toMatchObject({ ev: 'error', exitCode: 3 });
    expect(msg.message.startsWith(`session host config: ${line}`)).toBe(true);
    expect(msg.message).not.toContain('\n');
    expect(r.log).toBe(`host: ${msg.message}`); // the host log gets the line, no stack
  });
});

describe('parseHostConfig', () => {
  it('returns the config as the type the host uses, and names every bad field at once, controls made visible', () => {
    expect(parseHostConfig(JSON.stringify(good()))).toEqual(good());
    const bad = JSON.stringify({ ...good(), stepMs: 0, target: '', 'x\u202Ey': 1, __proto__: null });
    expect(() => parseHostConfig(bad)).toThrow(
      /^session host config: target: expected a non-empty string, got ""; stepMs: .*, got 0; x\[U\+202E\]y: unknown field/,
    );
    expect(() => parseHostConfig('{"__proto__": {}, "toString": 1}')).toThrow(
      /__proto__: unknown field.*toString: unknown field/,
    );
  });
});
