// A zombie to test the same-process rule against: a child that exited and that nobody reaps while the test looks (node
// reaps its own children, so a shell holds it).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readProcStat } from '../../harness/core/proc.js';

/** The PIDs whose parent is `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => readProcStat(p)?.ppid === pid);
}

/** A zombie's PID and start time, and the shell holding it (kill the holder when done: the zombie goes with it). */
export async function makeZombie(): Promise<{ pid: number; startTime: string; holder: ChildProcess }> {
  const holder = spawn('sh', ['-c', 'sleep 0.01 & read x'], { stdio: ['pipe', 'ignore', 'ignore'] });
  for (let i = 0; ; i++) {
    if (i > 500) {
      holder.kill('SIGKILL');
      throw new Error('no zombie seen');
    }
    await new Promise((r) => setTimeout(r, 10));
    const pid = childrenOf(holder.pid!).find((k) => readProcStat(k)?.state === 'Z');
    if (pid !== undefined) return { pid, startTime: readProcStat(pid)!.startTime, holder };
  }
}
