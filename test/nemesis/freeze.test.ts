// The freeze fault on a real session host (process target: host, agent and tool processes): SIGSTOP stops every
// process of the host's group (seen in /proc as state T), SIGCONT lets the same session carry on with no lost steps
// and the freeze checker passes; a freeze that outlasts the host timeout leaves the group stopped for the caller's
// SIGKILL. Hosts run compiled code, so this test loads the harness from dist/ (build first; npm test does).
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkloadModel } from '../../harness/check/workload.js';
import { readProcStat } from '../../harness/core/proc.js';
import { repoRoot } from '../helpers/paths.js';

const dist = path.join(repoRoot, 'dist', 'harness');
if (!existsSync(path.join(dist, 'nemesis', 'freeze.js')))
  throw new Error(`${dist}/nemesis/freeze.js is missing: build first (npm run build or npm test)`);
const load = <T>(rel: string): Promise<T> => import(pathToFileURL(path.join(dist, rel)).href) as Promise<T>;
const { HostHandle, isEv, isFullHeartbeat } =
  await load<typeof import('../../harness/session/host-handle.js')>('session/host-handle.js');
const { freezeHost } = await load<typeof import('../../harness/nemesis/freeze.js')>('nemesis/freeze.js');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-freeze-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A booted process-target host, up (first full heartbeat) with a committed checkpoint. */
async function bootHost(name: string): Promise<InstanceType<typeof HostHandle>> {
  const dir = path.join(tmp, name);
  const h = new HostHandle(
    {
      mode: 'boot',
      target: 'process',
      targetOptions: {},
      storeDir: path.join(dir, 'store'),
      sessionDir: path.join(dir, 'session'),
      scratchDir: path.join(dir, 'scratch'),
      stepMs: 5,
      checkpointEveryMs: 100,
      skewMs: 0,
      injectRestoreDelayMs: 0,
    },
    path.join(tmp, `${name}.log`),
  );
  await Promise.all([h.waitFor(isFullHeartbeat, 60_000), h.waitFor(isEv('ckpt-commit'), 60_000)]);
  return h;
}

/** The /proc states of every process in group `pgid`. */
function groupStates(pgid: number): string[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => readProcStat(n))
    .filter((s) => s !== null && s.pgrp === pgid)
    .map((s) => s!.state);
}

/** Resolves once every process of the group is stopped (state T), polled: timed from what /proc shows. */
async function allStopped(pgid: number): Promise<string[]> {
  for (;;) {
    const states = groupStates(pgid);
    if (states.length > 0 && states.every((s) => s === 'T')) return states;
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('freeze (real SIGSTOP / SIGCONT)', () => {
  const model = new WorkloadModel();

  it('stops the whole host group, and after SIGCONT the same session carries on: checker passes, no lost steps', async () => {
    const h = await bootHost('thaw');
    try {
      const nonce = h.nonce;
      const frozen = freezeHost(h, 1500, 30_000, model);
      const before = h.maxStep;
      const states = await allStopped(h.pid);
      expect(states.length).toBeGreaterThanOrEqual(3); // host, agent, tool
      const r = await frozen;
      expect(r.thawed).toBe(true);
      if (!r.thawed) return;
      expect(r.violations).toEqual([]);
      expect(r.step).toBeGreaterThanOrEqual(before);
      expect(h.nonce).toBe(nonce);
      expect(groupStates(h.pid)).not.toContain('T');
      // still the same live session: it keeps working and checkpointing after the thaw
      const step = h.maxStep;
      await h.waitFor((m) => m.ev === 'hb' && m.step > step + 5, 30_000);
      await h.waitFor(isEv('ckpt-commit'), 30_000);
    } finally {
      await h.reap();
    }
  });

  it('a freeze longer than the host timeout is not thawed: the group stays stopped for the caller to SIGKILL', async () => {
    const h = await bootHost('outlast');
    try {
      const r = await freezeHost(h, 60_000, 1000, model);
      expect(r.thawed).toBe(false);
      if (r.thawed) return;
      expect(r.frozenMs).toBeGreaterThanOrEqual(1000);
      expect(groupStates(h.pid).every((s) => s === 'T')).toBe(true);
      expect(await h.reap(30_000)).toBe(true); // SIGKILL ends stopped processes too
      expect(h.exited?.signal).toBe('SIGKILL');
    } finally {
      await h.reap();
    }
  });
});
