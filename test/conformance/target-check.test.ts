// `soak target check`: the conformance battery passes for the example adapter, the process target (in the host and
// through adapters/builtin) and the microvm target (real QEMU; gVisor's run is in test/targets/exec/gvisor.test.ts),
// and fails with a named check for a deliberately broken adapter (its restore boots fresh). Real hosts, real SIGKILLs.
// Each check runs its own CLI on its own scenario file, so they run at once (the micro-VM one is most of the time).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { describeResult, soakIn } from '../helpers/cli.js';
import { repoRoot } from '../helpers/paths.js';
import { hasQemu } from '../helpers/qemu.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-target-check-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 880_000);
const adapter = path.join(repoRoot, 'adapters', 'example', 'adapter.mjs');

describe.concurrent('soak target check', () => {
  it('passes every check for the example adapter, each with its evidence', async () => {
    const r = await soak('target', 'check', adapter);
    expect(r.exitCode, describeResult(r)).toBe(0);
    for (const id of ['boots-and-heartbeats', 'checkpoint-restore', 'kill-mid-checkpoint', 'destroy-no-process'])
      expect(r.stdout).toMatch(new RegExp(`${id} +PASS `));
    // a pass that says what it did not look at (not-checked.test.ts has the list)
    expect(r.stdout).toMatch(/^not checked .*\n {2}- .*\/tmp and \/dev\/shm/m);
  });

  it('passes for the process target (scenario default)', async () => {
    const r = await soak('target', 'check', 'default');
    expect(r.exitCode, describeResult(r)).toBe(0);
  });

  it('passes for the process target served by an external adapter (adapters/builtin)', async () => {
    const file = path.join(tmp, 'builtin.yaml');
    const builtin = path.join(repoRoot, 'adapters', 'builtin', 'adapter.mjs');
    writeFileSync(file, `name: builtin\ntarget: exec\nadapter: ${builtin}\nadapterOptions: { target: process }\n`);
    const r = await soak('target', 'check', file);
    expect(r.exitCode, describeResult(r)).toBe(0);
  }, 400_000);

  // A RAM-only micro-VM under TCG: ~5 s per boot, six hosts; 2m19s at load 24 on 2 cores (2026-12-01), so the
  // timeouts are generous and the steps wait on what the hosts report, never on a clock.
  it.skipIf(!hasQemu())(
    'passes for the microvm target (real QEMU)',
    async () => {
      const file = path.join(tmp, 'microvm.yaml');
      writeFileSync(
        file,
        'name: microvm-check\ntarget: microvm\nstepMs: 5\ncheckpoint: { everyMs: 1500 }\nresumeTimeoutMs: 240000\n' +
          'hostTimeoutMs: 240000\ntargetOptions: { memoryMiB: 256, disk: false, accel: auto }\n',
      );
      const r = await soak('target', 'check', file);
      expect(r.exitCode, describeResult(r)).toBe(0);
      expect(r.stdout).toMatch(/kill-mid-restore +PASS /);
    },
    900_000,
  );

  it('negative control: an adapter whose restore boots fresh fails checkpoint-restore on the nonce (exit 1)', async () => {
    const file = path.join(tmp, 'broken.yaml');
    writeFileSync(
      file,
      `name: broken\ntarget: exec\nadapter: ${adapter}\nadapterOptions: { restoreBootsFresh: true }\ncheckpoint: { everyMs: 500 }\n`,
    );
    const r = await soak('target', 'check', file);
    expect(r.exitCode, describeResult(r)).toBe(1);
    expect(r.stdout).toMatch(/checkpoint-restore +FAIL .*nonce/);
    expect(r.stdout).toMatch(/verdict: FAIL \(.*checkpoint-restore/);
  });
});
