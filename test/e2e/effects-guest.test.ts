// External effects from the static C agent (issue 34, item 5): real `soak run`s on the micro-VM target (QEMU) and the
// gVisor adapter (runsc), whose guests have no network and reach the ledger through their host's relay on the console.
// Step-key effects are never duplicated nor lost; the no-key control (and on gVisor the random-key one) shows its
// duplicates; every ledger row is at a step, with a key, that harness/effects/plan.ts names for the seed. The micro-VM
// run's runner is SIGKILLed once mid-run and resumed: nothing the ledger held is lost. Skipped (one line why) where the
// machine lacks QEMU, or runsc and root. Waits only for what the journal shows.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerDb, LEDGER_FILE, type LedgerRow } from '../../harness/effects/ledger-db.js';
import { DISCIPLINES, effectStepsThrough, isEffectStep, stepKey } from '../../harness/effects/plan.js';
import type { EffectCounts } from '../../harness/journal/effects-event.js';
import { describeResult } from '../helpers/cli.js';
import { journalSoFar, untilWhileRunning } from '../helpers/live-soak.js';
import { cliPath, repoRoot } from '../helpers/paths.js';
import { hasQemu } from '../helpers/qemu.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-effects-guest-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const SEED = 5;
const EVERY = 3;
const gvisorUsable = existsSync('/usr/bin/runsc') && process.getuid?.() === 0;

/** A scenario in its own folder; returns the folder. */
function scenario(name: string, lines: string[]): string {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  const head = [`name: ${name}`, `seed: ${SEED}`, 'stepMs: 5', `effects: { everySteps: ${EVERY} }`];
  writeFileSync(path.join(dir, 'scenario.yaml'), [...head, ...lines, ''].join('\n'));
  return dir;
}
const soak = (cwd: string, ...args: string[]): ResultPromise =>
  execaNode(cliPath, args, { cwd, reject: false, timeout: 600_000, stdin: 'ignore', env: { CI: '1' } });
const runDirOf = (dir: string): string | undefined => {
  const runs = path.join(dir, 'runs');
  const d = existsSync(runs) ? readdirSync(runs).find((x) => !x.startsWith('.') && x !== 'latest') : undefined;
  return d === undefined ? undefined : path.join(runs, d);
};
const accountings = (runDir: string) => journalSoFar(runDir).flatMap((e) => (e.type === 'effects' ? [e] : []));
function ledgerRows(runDir: string): LedgerRow[] {
  const db = LedgerDb.open(path.join(runDir, LEDGER_FILE), { readonly: true });
  try {
    return db.rows();
  } finally {
    db.close();
  }
}

/** The run's accountings summed per discipline; checks every ledger row against the plan. */
function judge(runDir: string): Record<(typeof DISCIPLINES)[number], EffectCounts> {
  const sum = new Map<string, Map<string, number>>(DISCIPLINES.map((d) => [d, new Map()]));
  for (const e of accountings(runDir))
    for (const d of DISCIPLINES)
      for (const [k, v] of Object.entries(e.disciplines[d] as unknown as Record<string, number>))
        sum.get(d)!.set(k, (sum.get(d)!.get(k) ?? 0) + v);
  const rows = ledgerRows(runDir);
  expect(rows.length).toBeGreaterThan(0);
  for (const row of rows) {
    expect(isEffectStep(SEED, row.step, EVERY), `step ${row.step}`).toBe(true);
    expect(row.effect).toBe(`${row.discipline}:${row.step}`);
    if (row.discipline === 'step-key') expect(row.key).toBe(stepKey(row.session, row.step));
    else if (row.discipline === 'no-key') expect(row.key).toBeNull();
    else expect(row.key).toMatch(/^[0-9a-f]{32}$/);
  }
  // the first guest ran from step 1: it emitted every step-key effect the plan names up to its last, no other
  const first = rows[0]!.incarnation;
  const steps = rows.filter((x) => x.incarnation === first && x.discipline === 'step-key').map((x) => x.step);
  expect(steps).toEqual(effectStepsThrough(SEED, Math.max(...steps), EVERY));
  return Object.fromEntries([...sum].map(([d, m]) => [d, Object.fromEntries(m)])) as unknown as Record<
    (typeof DISCIPLINES)[number],
    EffectCounts
  >;
}

/** What every guest run must show: step keys exactly once, nothing lost, the no-key control's duplicates found. */
function expectExactlyOnce(sum: Record<(typeof DISCIPLINES)[number], EffectCounts>): void {
  expect(sum['step-key'].first).toBeGreaterThan(0);
  expect(sum['step-key'].duplicates).toBe(0);
  expect(sum['step-key'].deduplicated).toBe(sum['step-key'].reEmitted);
  for (const d of DISCIPLINES) expect(sum[d].lost, d).toBe(0);
  expect(sum['no-key'].duplicates).toBeGreaterThan(0);
}

describe.skipIf(!hasQemu())(
  'external effects from a micro-VM guest (real QEMU; skipped: no qemu-system-x86_64)',
  () => {
    it('step keys exactly once, the no-key control duplicated; a runner SIGKILL and --resume lose nothing', async () => {
      const dir = scenario('microvm', [
        'target: microvm',
        'cycles: 5',
        'checkpoint: { everyMs: 1000 }',
        'kill:',
        '  phases: { work: 3, checkpoint: 1, restore: 0 }',
        '  workDelayMs: [1500, 3000]',
        '  checkpointDelayMs: [0, 1200]',
        'resumeTimeoutMs: 90000',
        'hostTimeoutMs: 30000',
        'targetOptions: { memoryMiB: 256, disk: true }',
      ]);
      let runner = soak(dir, 'run', '--scenario', 'scenario.yaml', '--no-report');
      const first = () => runDirOf(dir) !== undefined && accountings(runDirOf(dir)!).length >= 1;
      await untilWhileRunning(first, runner, 'a first accounting');
      const runDir = runDirOf(dir)!;
      runner.kill('SIGKILL');
      await runner;
      const before = ledgerRows(runDir).map((r) => `${r.seq} ${r.effect} ${r.applied}`);
      runner = soak(dir, 'run', '--resume', runDir, '--no-report');
      const done = await runner;
      expect([0, 1, 2], describeResult(done)).toContain(done.exitCode);
      expect(
        ledgerRows(runDir)
          .map((r) => `${r.seq} ${r.effect} ${r.applied}`)
          .slice(0, before.length),
      ).toEqual(before);
      const cycles = journalSoFar(runDir).flatMap((e) => (e.type === 'cycle' ? [e] : []));
      expect(cycles.length).toBeGreaterThanOrEqual(5);
      expect(cycles.filter((c) => c.outcome !== 'ok').map((c) => JSON.stringify(c))).toEqual([]);
      expectExactlyOnce(judge(runDir));
    }, 600_000);
  },
);

describe.skipIf(!gvisorUsable)(
  'external effects from a gVisor sandbox (real runsc; skipped: no runsc or not root)',
  () => {
    it('step keys exactly once; the random-key and no-key controls duplicated', async () => {
      const adapter = path.join(repoRoot, 'adapters', 'gvisor', 'adapter.mjs');
      const dir = scenario('gvisor', [
        'target: exec',
        `adapter: ${adapter}`,
        'adapterOptions: { rootfs: memory }',
        'cycles: 5',
        'checkpoint: { everyMs: 1000 }',
        'kill:',
        '  phases: { work: 3, checkpoint: 1, restore: 0 }',
        '  workDelayMs: [800, 2000]',
        '  checkpointDelayMs: [0, 800]',
        'resumeTimeoutMs: 60000',
        'hostTimeoutMs: 30000',
      ]);
      const r = await soak(dir, 'run', '--scenario', 'scenario.yaml', '--no-report');
      expect([0, 1, 2], describeResult(r)).toContain(r.exitCode);
      const runDir = runDirOf(dir)!;
      const cycles = journalSoFar(runDir).flatMap((e) => (e.type === 'cycle' ? [e] : []));
      expect(cycles.filter((c) => c.outcome !== 'ok').map((c) => JSON.stringify(c))).toEqual([]);
      const sum = judge(runDir);
      expectExactlyOnce(sum);
      expect(sum['random-key'].duplicates).toBeGreaterThan(0);
    }, 600_000);
  },
);
