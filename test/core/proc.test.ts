// parseProcStat reads state, parent, process group, session and start time from /proc/<pid>/stat text, even when comm
// holds ") "; startedBefore compares start times as whole numbers (not as strings); sameProcessAlive (the one rule for
// "is this still the process that recorded itself") holds for this process only while pid, start time and life match.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseProcStat, processStart, readProcStat, sameProcessAlive, startedBefore } from '../../harness/core/proc.js';
import { makeZombie } from '../helpers/zombie.js';

/** A stat line: fields 1..52, with the given comm, state, pgrp (field 5) and start time (field 22). */
function statLine(comm: string, state: string, pgrp: number, start: number): string {
  const rest = Array.from({ length: 50 }, (_, i) => String(i + 3)); // fields 3..52, each its own number
  rest[0] = state;
  rest[2] = String(pgrp);
  rest[19] = String(start);
  return `4242 (${comm}) ${rest.join(' ')}\n`;
}

describe('parseProcStat', () => {
  it('splits after the last ")" so a comm with spaces and parentheses does not shift fields', () => {
    expect(parseProcStat(statLine('a b) S 9 9', 'S', 777, 123456))).toEqual({
      state: 'S',
      ppid: 4,
      pgrp: 777,
      sid: 6,
      startTime: '123456',
    });
  });

  it('rejects text that is not a stat line (negative control)', () => {
    expect(parseProcStat('')).toBeNull();
    expect(parseProcStat('4242 (x) S 1')).toBeNull();
    expect(parseProcStat(statLine('x', 'S', 777, 123456).replace(' 123456 ', ' 12x456 '))).toBeNull();
  });

  it('reads this process: running, a numeric group, a start time that does not change', () => {
    const a = readProcStat(process.pid);
    expect(a).not.toBeNull();
    expect(a!.pgrp).toBeGreaterThan(0);
    expect(a!.ppid).toBe(process.ppid);
    // 0 where the runner descends from a process that never called setsid (the CI machine's agent does)
    expect(a!.sid).toBeGreaterThanOrEqual(0);
    expect(a!.sid).toBe(Number(readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]));
    expect(readProcStat(process.pid)!.startTime).toBe(a!.startTime);
    expect(readProcStat(2 ** 30)).toBeNull();
  });
});

describe('startedBefore', () => {
  it('compares start times as numbers: 99 is before 100 (a string compare says otherwise)', () => {
    expect(startedBefore('99', '100')).toBe(true);
    expect(startedBefore('100', '99')).toBe(false);
    expect(startedBefore('100', '100')).toBe(false);
  });
});

describe('sameProcessAlive', () => {
  it('holds for this process; a recycled PID (another start time), a gone PID and a zombie are each gone', async () => {
    const start = processStart(process.pid);
    expect(sameProcessAlive({ pid: process.pid, start })).toBe(true);
    expect(sameProcessAlive({ pid: process.pid, start: `${start}0` })).toBe(false);
    expect(sameProcessAlive({ pid: process.pid, start: null })).toBe(false);
    expect(sameProcessAlive({ pid: spawnSync('true').pid, start })).toBe(false);
    const zombie = await makeZombie();
    try {
      expect(readProcStat(zombie.pid)?.state).toBe('Z'); // its PID and start time still match...
      expect(sameProcessAlive({ pid: zombie.pid, start: zombie.startTime })).toBe(false); // ...but it is dead
    } finally {
      zombie.holder.kill('SIGKILL');
    }
  });
});
