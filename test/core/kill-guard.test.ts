// The runner's last check before it signals a kill-list entry, on real processes: the never-list (0, 1, the runner, its
// parent and group, the host and its group), and an entry signalled only while it is the very process declared (same
// start time, not a zombie, a group only while its leader leads it). Negative controls: each refused victim lives on.
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { killRefusal, neverKilled, neverReason, signalEntries, type KillEntry } from '../../harness/core/kill-guard.js';
import { readProcStat } from '../../harness/core/proc.js';
import { makeZombie } from '../helpers/zombie.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const c of started.splice(0)) c.kill('SIGKILL');
});

/** A process that runs until killed (`detached`: leads its own group), once /proc shows it. */
async function forever(detached = false): Promise<ChildProcess> {
  const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached, stdio: 'ignore' });
  started.push(c);
  for (let i = 0; readProcStat(c.pid!) === null; i++) {
    if (i > 500) throw new Error('child not seen in /proc');
    await new Promise((r) => setTimeout(r, 10));
  }
  return c;
}

const entry = (c: ChildProcess, group = false, startTime?: string): KillEntry => ({
  pid: c.pid!,
  startTime: startTime ?? readProcStat(c.pid!)!.startTime,
  group,
});
const exitOf = (c: ChildProcess): Promise<NodeJS.Signals | null> =>
  new Promise((r) =>
    c.exitCode !== null || c.signalCode !== null ? r(c.signalCode) : c.once('exit', (_c, s) => r(s)),
  );

describe('neverKilled', () => {
  it('lists 0, 1, the runner, its parent, group and session, the host and its group', async () => {
    const host = await forever(true);
    const never = neverKilled(process.pid, host.pid);
    const me = readProcStat(process.pid)!;
    for (const pid of [0, 1, process.pid, process.ppid, me.pgrp, me.sid, host.pid!])
      expect(never.has(pid), `${pid}`).toBe(true);
    expect(neverReason(process.pid, never)).toBe(`pid ${process.pid} is never killed: it is the runner`);
    expect(neverReason(process.ppid, never)).toMatch(/the runner's parent|the runner's (process group|session)/);
    expect(neverReason(host.pid!, never)).toBe(`pid ${host.pid} is never killed: it is the session host`);
    expect(neverReason(1, never)).toBe('pid 1 is never killed (init)');
    expect(neverReason(-1, never)).toBe('pid -1 is never killed (not a positive process id)');
    expect(neverReason(0, never)).toMatch(/^pid 0 is never killed/);
    expect(neverReason(2 ** 22 + 7, never)).toBeNull(); // any other id may be named (descent is the host's proof)
  });
});

describe('signalEntries', () => {
  it('kills the declared process and the declared group, and spares a recycled PID, a non-leader and the runner', async () => {
    const [plain, leader, recycled, notLeader] = await Promise.all([forever(), forever(true), forever(), forever()]);
    const never = neverKilled(process.pid);
    const wrongStart = String(BigInt(readProcStat(recycled.pid!)!.startTime) + 1n); // another process at that PID
    const me: KillEntry = { pid: process.pid, startTime: readProcStat(process.pid)!.startTime, group: false };
    const r = signalEntries(
      [entry(plain), entry(leader, true), entry(recycled, false, wrongStart), entry(notLeader, true), me],
      never,
    );
    expect(r.hit).toEqual([plain.pid, leader.pid]);
    expect(r.spared).toEqual([
      `pid ${recycled.pid} is another process now (start time ${readProcStat(recycled.pid!)!.startTime}, declared ${wrongStart}): recycled`,
      `pid ${notLeader.pid} no longer leads its process group`,
      `pid ${process.pid} is never killed: it is the runner`,
    ]);
    expect(await exitOf(plain)).toBe('SIGKILL');
    expect(await exitOf(leader)).toBe('SIGKILL');
    expect(readProcStat(recycled.pid!)?.state).not.toBe('Z');
    expect(readProcStat(notLeader.pid!)?.state).not.toBe('Z');
  });

  it('a zombie is already dead and a gone process is no news: neither is signalled', async () => {
    const { pid: zombie, startTime, holder } = await makeZombie();
    started.push(holder);
    const z: KillEntry = { pid: zombie, startTime, group: false };
    expect(killRefusal(z, neverKilled(process.pid))).toBe(`pid ${zombie} is a zombie (already dead)`);
    expect(signalEntries([z, { pid: 2 ** 22 + 7, startTime: '1', group: false }], neverKilled(process.pid))).toEqual({
      hit: [],
      spared: [`pid ${zombie} is a zombie (already dead)`],
    });
  });
});
