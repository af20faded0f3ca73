// The coding workload on the micro-VM target (issue 37 part 4; real QEMU, TCG): a session whose guest unpacks, edits,
// builds with tcc, tests and serves beside the agent resumes in every cycle, each resumed state's workload account
// carried into the journal, its builds going on across resumes; the report names the profile. Negative control
// (SOAK_TEST_WORK_BREAK): a workload whose edit at iteration 1 writes the wrong iteration fails the cycle it happened in
// (`work-failed`), and only that one: a later cycle whose killed host started with the failure already counted passes.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, ObservationEvent } from '../../harness/journal/events.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult, soakRunJson, writeScenario } from '../helpers/cli.js';
import { hasQemu } from '../helpers/qemu.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-coding-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

/**
 * Kills land after the workload has had time to build: its first iteration (unpack, six compiles, link, test) took well
 * under a second under TCG here, later ones a few a second; 3-5 s a cycle leaves room for a loaded machine.
 */
const lines = [
  'target: microvm',
  'cycles: 4',
  'seed: 5',
  'stepMs: 5',
  'checkpoint: { everyMs: 1000 }',
  'kill: { phases: { work: 1 }, workDelayMs: [3000, 5000] }',
  'resumeTimeoutMs: 120000',
  'hostTimeoutMs: 60000',
  'targetOptions: { accel: tcg, memoryMiB: 256, disk: true, workload: coding }',
];

type Json = { verdict: string; summary: { environment: { target: Record<string, unknown> } } };
const cyclesOf = (events: { type: string }[]) => events.filter((e): e is CycleEvent => e.type === 'cycle');
const observed = (events: { type: string }[]) => events.filter((e): e is ObservationEvent => e.type === 'observation');

describe.skipIf(!hasQemu())('the coding workload in a micro-VM soak (real QEMU, TCG)', () => {
  it('resumes every cycle with the workload carried on, its account journaled, the profile in the report', async () => {
    const { r, events, json } = await soakRunJson<Json>(
      writeScenario(tmp, 'coding', lines),
      path.join(tmp, 'ok'),
      600_000,
    );
    expect(
      cyclesOf(events).map((c) => c.outcome),
      describeResult(r),
    ).toEqual(['ok', 'ok', 'ok', 'ok']);
    const work = observed(events).map((o) => o.work);
    expect(work.every((w) => w !== undefined && w.failures === 0 && w.served === w.iteration)).toBe(true);
    // the workload built and tested in the guest, and kept going across resumes (not one fixed restored state)
    const iterations = work.map((w) => w!.iteration);
    expect(Math.max(...iterations)).toBeGreaterThan(0);
    expect(iterations[3]).toBeGreaterThan(iterations[0]!); // each resume is of a checkpoint after the one before
    expect(json.summary.environment.target['workload']).toBe('coding');
    const reports = path.join(tmp, 'ok', 'reports');
    const dated = readdirSync(reports).find((d) => d !== 'latest')!;
    const html = readFileSync(path.join(reports, dated, 'index.html'), 'utf8');
    expect(html).toContain('Guest workload');
    expect(html).toContain('compile it with tcc');
    // the verdict says what of the workload it covers: the resumed states and the iterations they had reached
    expect(html).toContain('the coding workload&#39;s builds, tests and server (4 resumed states, at iteration');
  });

  it('negative control: a workload failure fails the cycle it happened in, with work-failed, and no later one', async () => {
    const { r, events } = await soakRunJson<Json>(
      writeScenario(tmp, 'coding-broken', lines),
      path.join(tmp, 'broken'),
      600_000,
      { SOAK_TEST_WORK_BREAK: '1' },
    );
    // the failure (at iteration 1) shows in the first resumed state that has it; that cycle fails, no other does
    const cycles = cyclesOf(events);
    const failures = observed(events).map((o) => o.work?.failures);
    const first = failures.indexOf(1);
    expect(first, describeResult(r)).toBeGreaterThanOrEqual(0);
    expect(cycles.map((c) => c.outcome)).toEqual(cycles.map((_, i) => (i === first ? 'fail' : 'ok')));
    expect(cycles[first]!.violations.map((v) => v.code)).toEqual(['work-failed']);
    expect(failures.slice(first).every((f) => f === 1)).toBe(true);
    expect(
      observed(events)
        .slice(first + 1)
        .every((o) => o.workBefore === 1),
    ).toBe(true);
    expect(r.exitCode).toBe(1);
  });
});
