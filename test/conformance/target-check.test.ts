// `soak target check`: the conformance battery passes for the example adapter and the process target, and fails with
// a named check for a deliberately broken adapter (its restore boots fresh). Real hosts, real SIGKILLs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, soakIn } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-target-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 400_000);
const adapter = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

describe('soak target check', () => {
  it('passes every check for the example adapter, each with its evidence', async () => {
    const r = await soak('target', 'check', adapter);
    expect(r.exitCode, describeResult(r)).toBe(0);
    for (const id of ['boots-and-heartbeats', 'checkpoint-restore', 'kill-mid-checkpoint', 'destroy-no-process'])
      expect(String(r.stdout)).toMatch(new RegExp(`${id} +PASS `));
  });

  it('passes for the process target (scenario default)', async () => {
    const r = await soak('target', 'check', 'default');
    expect(r.exitCode, describeResult(r)).toBe(0);
  });

  it('negative control: an adapter whose restore boots fresh fails checkpoint-restore on the nonce (exit 1)', async () => {
    const file = path.join(tmp, 'broken.yaml');
    writeFileSync(
      file,
      `name: broken\ntarget: exec\nadapter: ${adapter}\nadapterOptions: { restoreBootsFresh: true }\ncheckpoint: { everyMs: 500 }\n`,
    );
    const r = await soak('target', 'check', file);
    expect(r.exitCode, describeResult(r)).toBe(1);
    expect(String(r.stdout)).toMatch(/checkpoint-restore +FAIL .*nonce/);
    expect(String(r.stdout)).toMatch(/verdict: FAIL \(.*checkpoint-restore/);
  });
});
