// Many sessions at once on the micro-VM target (issue 36, the knee's 1, 2, 4): two sessions, each its own QEMU guest
// (TCG), socket folder, store and plan, resume every cycle they were killed in, each its own nonce, and neither
// session's host served the other.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BootEvent, CycleEvent, HostStartEvent, ObservationEvent } from '../../harness/journal/events.js';
import { cliPath } from '../helpers/paths.js';
import { describeResult, soakRunJson, writeScenario } from '../helpers/cli.js';
import { hasQemu } from '../helpers/qemu.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-sessions-mv-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

const lines = [
  'target: microvm',
  'sessions: 2',
  'cycles: 2',
  'seed: 5',
  'stepMs: 5',
  'checkpoint: { everyMs: 1000 }',
  'kill: { phases: { work: 1 }, workDelayMs: [300, 800] }',
  'resumeTimeoutMs: 120000',
  'hostTimeoutMs: 60000',
  'targetOptions: { accel: tcg, memoryMiB: 256 }',
];

describe.skipIf(!hasQemu())('soak run --sessions 2 on the micro-VM target (real QEMU, TCG)', () => {
  it("resumes each session's guest in every cycle, each session its own nonce and host", async () => {
    type Json = { verdict: string; summary: { sessions?: { count: number } } };
    const { r, events, json } = await soakRunJson<Json>(
      writeScenario(tmp, 'two', lines),
      path.join(tmp, 'two'),
      900_000,
    );
    const cycles = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles.map((c) => `${c.session ?? 0}:${c.cycle}:${c.outcome}`).sort(), describeResult(r)).toEqual([
      '0:1:ok',
      '0:2:ok',
      '1:1:ok',
      '1:2:ok',
    ]);
    const nonces = (s: number) =>
      new Set(events.filter((e): e is BootEvent => e.type === 'boot' && (e.session ?? 0) === s).map((b) => b.nonce));
    expect(nonces(0).size).toBe(1);
    expect(nonces(1).size).toBe(1);
    expect([...nonces(0)][0]).not.toBe([...nonces(1)][0]);
    // each session started its own hosts (a boot, then a restore per cycle): no host served two sessions
    const hosts = events.filter((e): e is HostStartEvent => e.type === 'host-start');
    const hostsOf = (s: number) => new Set(hosts.filter((h) => (h.session ?? 0) === s).map((h) => h.pid));
    expect(hostsOf(0).size).toBeGreaterThanOrEqual(3);
    expect(hostsOf(1).size).toBeGreaterThanOrEqual(3);
    for (const pid of hostsOf(0)) expect(hostsOf(1).has(pid)).toBe(false);
    expect(json.summary.sessions?.count).toBe(2);
    // every resume was timed from the guest's `cont` to its first full heartbeat: the checker's allowance for the
    // steps a restored guest takes before its first request reaches it (check/heartbeat.ts stepsRunBound)
    const observed = events.filter((e): e is ObservationEvent => e.type === 'observation');
    expect(observed).toHaveLength(4);
    for (const o of observed) expect(o.ran).toEqual({ ms: expect.any(Number) as number, stepMs: 5 });
  }, 900_000);
});
