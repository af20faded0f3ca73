// The page's list of a process group's members, read from /proc, on real processes: a detached parent and its child.
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readGroup } from '../../harness/demo/group.js';

let pgid = 0;
afterEach(() => {
  if (pgid > 0) process.kill(-pgid, 'SIGKILL');
  pgid = 0;
});

describe('readGroup', () => {
  it('lists every live process of the group, and nothing of another group', async () => {
    const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; wait'], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    pgid = parent.pid!;
    const child = Number(
      await new Promise<string>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(d.toString()))),
    );
    // The child is a fork of `sh` until it execs `sleep`: wait for the exec (observed progress, not a sleep).
    let members = readGroup(pgid);
    for (let i = 0; i < 500 && members.find((m) => m.pid === child)?.name !== 'sleep'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      members = readGroup(pgid);
    }
    expect(members.map((m) => m.pid)).toEqual([pgid, child].sort((a, b) => a - b));
    expect(members.find((m) => m.pid === child)?.name).toBe('sleep');
    expect(readGroup(process.pid).some((m) => m.pid === child)).toBe(false);
  });
});
