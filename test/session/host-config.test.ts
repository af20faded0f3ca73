// A session host validates its one argument (the runner's config) before it acts: the real host, spawned with a bad
// config, exits 3 with one line naming the field (to the runner as its error message, to its log without a stack);
// the config the runner builds from a real scenario is accepted (a describe-mode host reports its target).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { hostConfig } from '../../harness/run/host-journal.js';
import { runPaths } from '../../harness/run/run-folder.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { parseHostConfig, type HostConfig } from '../../harness/session/protocol.js';
import { repoRoot } from '../helpers/paths.js';

const hostMain = path.join(repoRoot, 'dist', 'harness', 'session', 'host-main.js');
const dir = mkdtempSync(path.join(tmpdir(), 'soak-host-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A config the runner would send, in describe mode (a host that skipped validation would describe and exit 0). */
function good(): HostConfig {
  const { scenario } = loadScenario('default');
  return { ...hostConfig(scenario, runPaths(dir)), mode: 'describe' };
}

/** Spawn the built host with `arg` as its argument; its exit code, its stdout messages and its log (stderr). */
async function spawnHost(arg: string | undefined): Promise<{ exitCode?: number; messages: unknown[]; log: string }> {
  const r = await execaNode(hostMain, arg === undefined ? [] : [arg], {
    reject: false,
    timeout: 60_000,
    stdin: 'ignore',
  });
  const messages = r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as unknown);
  return { exitCode: r.exitCode, messages, log: r.stderr };
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
  });

  const cases: [what: string, arg: string | undefined, line: string][] = [
    [
      'a number sent as a string',
      JSON.stringify({ ...good(), stepMs: '5' }),
      'stepMs: Invalid input: expected number, received string',
    ],
    ['a missing folder', without('storeDir'), 'storeDir: Invalid input: expected string, received undefined'],
    ['an unknown mode', JSON.stringify({ ...good(), mode: 'explode' }), 'mode: Invalid option'],
    ['a misspelt field', JSON.stringify({ ...good(), skewMS: 0 }), 'skewMS: Unrecognized key'],
    ['a negative delay', JSON.stringify({ ...good(), injectRestoreDelayMs: -1 }), 'injectRestoreDelayMs: Too small'],
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
  it('returns the config as the type the host uses, and names every bad field at once', () => {
    expect(parseHostConfig(JSON.stringify(good()))).toEqual(good());
    expect(() => parseHostConfig(JSON.stringify({ ...good(), stepMs: 0, target: '' }))).toThrow(
      /^session host config: target: .*; stepMs: Too small/,
    );
  });
});
