// The host's proof of an adapter's kill list, on real processes: this test process plays the adapter. Its children (a
// plain one, a group leader) are proven with their start times; a process that is not its descendant (a detached one
// re-parented away, with no subreaper in between), a non-leader named as a group, the never-list and an adapter whose
// PID now belongs to another process are refused, each naming the field and the value; gone processes are dropped.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { neverKilled } from '../../../harness/core/kill-guard.js';
import { readProcStat } from '../../../harness/core/proc.js';
import { type AdapterIdentity, proveKillList } from '../../../harness/targets/exec/kill-proof.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
});

async function seen(pid: number): Promise<number> {
  for (let i = 0; readProcStat(pid) === null; i++) {
    if (i > 500) throw new Error(`pid ${pid} not seen in /proc`);
    await new Promise((r) => setTimeout(r, 10));
  }
  started.push(pid);
  return pid;
}

const child = (detached = false): Promise<number> => {
  const c: ChildProcess = spawn('sleep', ['1000'], { detached, stdio: 'ignore' });
  return seen(c.pid!);
};

/** A sleep in its own session whose shell exited: re-parented to the nearest subreaper above us, or init. */
const detachedAway = (): Promise<number> =>
  seen(
    Number(execFileSync('sh', ['-c', 'setsid sleep 1000 </dev/null >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' })),
  );

const me: AdapterIdentity = { pid: process.pid, startTime: readProcStat(process.pid)!.startTime, detachNote: null };
// The never-list of a host whose runner is this process's parent (here: whatever runs vitest).
const never = neverKilled(process.ppid, 2 ** 22 + 9);

describe('proveKillList', () => {
  it("proves the adapter's descendants and carries their start times", async () => {
    const [plain, leader] = await Promise.all([child(), child(true)]);
    const proof = proveKillList({ pids: [plain, leader], groups: [leader] }, me, never);
    expect(proof).toEqual({
      ok: true,
      dropped: [],
      entries: [
        { pid: leader, startTime: readProcStat(leader)!.startTime, group: true },
        { pid: plain, startTime: readProcStat(plain)!.startTime, group: false },
      ],
    });
  });

  it('refuses a process that is not a descendant, naming the field, the value and why (and the missing subreaper)', async () => {
    const plain = await child();
    const away = await detachedAway();
    expect(readProcStat(away)!.ppid).not.toBe(process.pid);
    const proof = proveKillList(
      { pids: [plain, away], groups: [] },
      { ...me, detachNote: 'no subreaper launcher (gcc missing)' },
      never,
    );
    expect(proof.ok).toBe(false);
    const refusal = proof.ok ? '' : proof.refusal;
    expect(refusal).toMatch(
      new RegExp(
        `^pids\\[1\\] = ${away}: pid ${away} is not a descendant of adapter pid ${process.pid} \\(its parent chain ends at pid \\d+\\); no subreaper launcher \\(gcc missing\\)$`,
      ),
    );
  });

  it('refuses a non-leader named as a group, the never-list, and an adapter PID that is another process now', async () => {
    const plain = await child();
    const refusal = (list: { pids: number[]; groups: number[] }, adapter = me): string => {
      const p = proveKillList(list, adapter, never);
      return p.ok ? 'accepted' : p.refusal;
    };
    expect(refusal({ pids: [], groups: [plain] })).toBe(
      `groups[0] = ${plain}: pid ${plain} does not lead a process group (its group is ${readProcStat(plain)!.pgrp}): only a group's leader names it`,
    );
    expect(refusal({ pids: [plain, 1], groups: [] })).toBe('pids[1] = 1: pid 1 is never killed (init)');
    expect(refusal({ pids: [], groups: [process.ppid] })).toMatch(
      /^groups\[0\] = \d+: pid \d+ is never killed: it is the runner$/,
    );
    expect(refusal({ pids: [-1], groups: [] })).toBe(
      'pids[0] = -1: pid -1 is never killed (not a positive process id)',
    );
    const recycledAdapter = { ...me, startTime: String(BigInt(me.startTime) - 1n) };
    expect(refusal({ pids: [plain], groups: [] }, recycledAdapter)).toMatch(
      new RegExp(
        `^pids\\[0\\] = ${plain}: pid ${plain} is not a descendant of adapter pid ${process.pid} \\(pid ${process.pid} is no longer the adapter\\)$`,
      ),
    );
  });

  it('drops a process that is gone (nothing to kill) instead of refusing the list', () => {
    const proof = proveKillList({ pids: [2 ** 22 + 7], groups: [] }, me, never);
    expect(proof).toEqual({ ok: true, entries: [], dropped: [`pids[0] = ${2 ** 22 + 7}`] });
  });
});
