// `soak target check`'s effects line on real hosts and a real ledger: the example adapter declares effects and its
// sandbox reaches the ledger (PASS); the same adapter declaring effects but never sending one fails with one line
// (exit 1: the negative control); with { noEffects: true } it declares none: "effects: not declared", no failure.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, soakIn } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-effects-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 300_000);
const adapter = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');
const scenario = (name: string, options: string): string => {
  const file = path.join(tmp, `${name}.yaml`);
  writeFileSync(file, `name: ${name}\ntarget: exec\nadapter: ${adapter}\nadapterOptions: ${options}\n`);
  return file;
};
const effectsLines = (stdout: string): string[] => stdout.split('\n').filter((l) => l.startsWith('effects: '));

describe.concurrent('soak target check: effects', () => {
  it('an adapter that declares effects reaches the ledger: PASS, with what the ledger acknowledged', async () => {
    const r = await soak('target', 'check', adapter);
    expect(r.exitCode, describeResult(r)).toBe(0);
    expect(effectsLines(r.stdout)).toEqual([
      expect.stringMatching(/^effects: PASS {2}declares effects \(reach loopback\); the ledger acknowledged \d+ /),
    ]);
  });

  it('negative control: declared but never sent fails with one line (exit 1)', async () => {
    const r = await soak('target', 'check', scenario('never', '{ effectsNeverSent: true }'));
    expect(r.exitCode, describeResult(r)).toBe(1);
    expect(effectsLines(r.stdout)).toEqual([
      expect.stringMatching(
        /^effects: FAIL {2}declares effects \(reach loopback\) but no effect of session \w+ reached/,
      ),
    ]);
    expect(r.stdout).toMatch(/^verdict: FAIL \(effects\)$/m);
    expect(r.stdout).toMatch(/checkpoint-restore +PASS /); // the rest of the battery is unaffected
  });

  it('an adapter that does not declare effects: "effects: not declared", not a failure (exit 0)', async () => {
    const r = await soak('target', 'check', scenario('none', '{ noEffects: true }'), '--json');
    expect(r.exitCode, describeResult(r)).toBe(0);
    const j = JSON.parse(r.stdout) as { effects: { verdict: string; evidence: string } };
    expect(j.effects.verdict).toBe('not-declared');
    expect(j.effects.evidence).toMatch(/declares no way/);
  });
});
