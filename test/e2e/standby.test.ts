// Warm standby (issue 16): with `standby: true` every resume after a kill is handed to a host started ahead of it,
// the run verifies as a cold one does (the restored checkpoint is the runner's latest: a standby resolves what was
// committed after its pre-read), and the summary and report say a standby was used. Negative controls: a standby that
// skips the restore (test-only switch) and reports the checkpoint anyway is caught by the checker, and so is one that
// restores its stale pre-read.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, HostStartEvent, JournalEvent, RestoreEvent } from '../../harness/journal/events.js';
import { WARM_SOURCE } from '../../harness/store/read/warm-chunks.js';
import { STANDBY_SKIPS_RESTORE, STANDBY_STALE_NEWEST } from '../../harness/session/standby.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult, soakRunJson, writeScenario } from '../helpers/cli.js';
import { hasQemu } from '../helpers/qemu.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-standby-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

const processLines = [
  'target: process',
  'cycles: 5',
  'checkpoint: { everyMs: 100 }',
  'kill: { phases: { work: 2, checkpoint: 1, restore: 0 }, workDelayMs: [100, 300] }',
];

/** Run `soak run` on a standby scenario; returns the journal's events and the parsed --json result. */
async function run(name: string, env: Record<string, string> = {}, lines = processLines) {
  const file = writeScenario(tmp, name, ['seed: 3', 'standby: true', ...lines]);
  return soakRunJson<{ reportDir: string; summary: { standby?: boolean } }>(file, path.join(tmp, name), 480_000, env);
}

/** The run's cycles, each asserted ok, and its host starts. */
function allOk(events: JournalEvent[], r: Parameters<typeof describeResult>[0]) {
  const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
  expect(
    cycles.map((c) => c.outcome),
    describeResult(r),
  ).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
  return { cycles, starts: events.filter((e): e is HostStartEvent => e.type === 'host-start') };
}

describe('soak run with a warm standby (process target)', () => {
  it('hands every resume to a standby host, verifies each cycle, and says so in summary.json and summary.md', async () => {
    const { r, events, json } = await run('standby-ok');
    const { starts } = allOk(events, r);
    // one boot, no cold restore host, and a standby started for each cycle (the last one is discarded at the end)
    expect(starts.filter((s) => s.mode === 'boot')).toHaveLength(1);
    expect(starts.filter((s) => s.mode === 'restore')).toHaveLength(0);
    expect(starts.filter((s) => s.mode === 'standby').length).toBeGreaterThanOrEqual(5);
    expect(json.summary.standby).toBe(true);
    expect(readFileSync(path.join(json.reportDir, 'summary.md'), 'utf8')).toContain('warm standby');
    // restores read the standby's warm copy, and say so (a checkpoint committed just before its kill may have no
    // chunk in common with the copy: every 100 ms here, so not every restore must)
    const restores = events.filter((e): e is RestoreEvent => e.type === 'restore');
    expect(restores.filter((e) => e.source !== undefined && e.source !== WARM_SOURCE)).toEqual([]);
    expect(restores.filter((e) => e.source === WARM_SOURCE).length).toBeGreaterThanOrEqual(1);
  }, 300_000);

  it('standby: pool hands every resume to a pre-started host that read nothing of the session before the kill', async () => {
    const file = writeScenario(tmp, 'pool', ['seed: 3', 'standby: pool', ...processLines]);
    const { r, events, json } = await soakRunJson<{ reportDir: string; summary: { standby?: unknown } }>(
      file,
      path.join(tmp, 'pool'),
      480_000,
    );
    const { starts } = allOk(events, r);
    expect(starts.filter((s) => s.mode === 'restore' || s.mode === 'standby')).toHaveLength(0);
    expect(starts.filter((s) => s.mode === 'pool').length).toBeGreaterThanOrEqual(5);
    // no warm copy: every restore read its parts from the store at the hand-off
    const restores = events.filter((e): e is RestoreEvent => e.type === 'restore');
    expect(restores).toHaveLength(5);
    expect(restores.filter((e) => e.source === WARM_SOURCE)).toEqual([]);
    expect(readFileSync(path.join(tmp, 'pool', 'latest', 'hosts.log'), 'utf8')).not.toContain('warm copy');
    expect(json.summary.standby).toBe('pool');
    expect(readFileSync(path.join(json.reportDir, 'summary.md'), 'utf8')).toContain('pool host');
  }, 300_000);

  it('with kills during restores, the restore after such a kill goes to a second standby, not a cold host', async () => {
    const lines = [
      'target: process',
      'cycles: 5',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 0, checkpoint: 0, restore: 1 }, workDelayMs: [100, 300], restoreDelayMs: [0, 10] }',
      // a standby restores its warm copy in a few ms, over before most aimed kills: each restore held 40 ms
      'injectRestoreDelayMs: 40',
    ];
    const { r, events } = await run('standby-restore-kills', {}, lines);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(
      cycles.map((c) => c.outcome),
      describeResult(r),
    ).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    // a restore that ends before its aimed kill is not killed (the runner says so; the report counts such misses):
    // a process restore takes tens of ms, so a loaded machine can miss one; most must land
    expect(cycles.filter((c) => c.restoreKills >= 1).length, describeResult(r)).toBeGreaterThanOrEqual(3);
    const starts = events.filter((e): e is HostStartEvent => e.type === 'host-start');
    expect(starts.filter((s) => s.mode === 'restore')).toHaveLength(0);
  }, 300_000);

  it('negative control: a standby that skips the restore is caught by the nonce check in every cycle', async () => {
    const { r, events } = await run('standby-skips', { [STANDBY_SKIPS_RESTORE]: '1' });
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.length, describeResult(r)).toBe(5);
    for (const c of cycles) {
      expect(c.outcome).toBe('fail');
      const codes = c.violations.map((v) => v.code);
      expect(codes).toContain('nonce');
      expect(codes).toContain('regressed'); // a fresh session at step ~0, behind the checkpoint it claims
    }
    expect(r.exitCode).toBe(1);
  }, 300_000);

  it('negative control: a standby that restores its pre-read, not what was committed after it, is caught (not-latest)', async () => {
    // the stale standby says it is ready only once a checkpoint newer than its pre-read exists; the kill waits for it
    const lines = [
      'target: process',
      'cycles: 3',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 1 }, workDelayMs: [300, 500] }',
    ];
    const { r, events } = await run('standby-stale', { [STANDBY_STALE_NEWEST]: '1' }, lines);
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.length, describeResult(r)).toBe(3);
    for (const c of cycles) {
      expect(c.outcome).toBe('fail');
      expect(c.violations.map((v) => v.code)).toContain('not-latest');
    }
    expect(r.exitCode).toBe(1);
  }, 300_000);
});

// Short real micro-VM runs (TCG here, slow under load): the standby's QEMU waits in `-incoming defer`, RAM only and
// with a disk.
describe.skipIf(!hasQemu())('soak run with a warm standby (microvm)', () => {
  it.each([
    ['hands each resume to a standby whose QEMU already waits for the RAM stream; every cycle verifies', false],
    ['with a disk: the standby QEMU waits on a placeholder image the restore overwrites; every cycle verifies', true],
  ])(
    '%s',
    async (_what, disk) => {
      const name = disk ? 'standby-microvm-disk' : 'standby-microvm';
      const { r, events } = await run(name, {}, [
        'target: microvm',
        'cycles: 2',
        'checkpoint: { everyMs: 1500 }',
        'kill: { phases: { work: 1 }, workDelayMs: [500, 1500] }',
        'resumeTimeoutMs: 120000',
        'hostTimeoutMs: 60000',
        `targetOptions: { memoryMiB: 256, disk: ${disk}, accel: auto, ramCapture: stream }`,
      ]);
      const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
      expect(
        cycles.map((c) => c.outcome),
        describeResult(r),
      ).toEqual(['ok', 'ok']);
      const starts = events.filter((e): e is HostStartEvent => e.type === 'host-start');
      expect(starts.filter((s) => s.mode === 'restore')).toHaveLength(0);
    },
    600_000,
  );
});
