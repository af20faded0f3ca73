// The subreaper launcher an adapter runs under (native/subreaper), on real processes: a process the program detaches is
// adopted by the launcher (so the host can prove it a descendant) and reaped once it exits (no zombie piles up); the
// program's exit code is the launcher's; a SIGKILL of the launcher alone takes the program with it. Negative control:
// without the launcher the detached process is adopted elsewhere (its parent chain leaves the program's tree).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readProcStat } from '../../../harness/core/proc.js';
import { subreaperLauncher } from '../../../harness/targets/exec/launcher.js';

const children = (pid: number): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => readProcStat(p)?.ppid === pid);

async function until<T>(probe: () => T | null | undefined | false, what: string): Promise<T> {
  for (let i = 0; ; i++) {
    const v = probe();
    if (v !== null && v !== undefined && v !== false) return v;
    if (i > 1000) throw new Error(`not observed within 20 s: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A duration no other sleep on the machine has: the sleeps this test detaches are found (and cleaned up) by it. */
const MARK = `999.${process.pid}`;
/** `sh -c` that detaches three sleeps (their subshells exit at once) and then stays until stdin closes. */
const DETACH = `(sleep ${MARK} &); (sleep ${MARK} &); (sleep ${MARK} &); echo ready; read x; exit 0`;

/** Whether process `p` runs a marked sleep (not the subshell a sleep is forked from before it execs). */
const isMarked = (p: number | string): boolean => {
  try {
    return readFileSync(`/proc/${p}/cmdline`, 'utf8') === `sleep\0${MARK}\0`;
  } catch {
    return false;
  }
};

/** The marked sleeps still running, wherever they were adopted. */
const marked = (): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter(isMarked)
    .map(Number);

describe('subreaper launcher', () => {
  it('adopts what the program detaches and reaps it once it exits; without it, the detached processes leave', async () => {
    const { bin } = await subreaperLauncher();
    expect(bin, 'gcc builds the launcher here').not.toBeNull();
    const launched = spawn(bin!, ['sh', '-c', DETACH], { stdio: ['pipe', 'pipe', 'ignore'] });
    const bare = spawn('sh', ['-c', DETACH], { stdio: ['pipe', 'pipe', 'ignore'] });
    try {
      await Promise.all([launched, bare].map((c) => new Promise((r) => c.stdout.once('data', r))));
      // adopted: the launcher's children are the program and the three sleeps, each already running sleep (under load a
      // forked child can be adopted before it execs: killed then, it would exec sleep afterwards and never go)
      const adopted = await until(() => {
        const kids = children(launched.pid!).filter((p) => readProcStat(p)?.state !== 'Z');
        return kids.length === 4 && kids.filter(isMarked).length === 3 && kids;
      }, 'the three detached sleeps adopted by the launcher');
      expect(adopted).toHaveLength(4);
      // control: the bare program's sleeps were adopted by someone else (it has no child left but none)
      expect(children(bare.pid!)).toEqual([]);
      // reaped: once the sleeps end, only the program is left under the launcher (no zombie)
      for (const p of adopted.filter(isMarked)) process.kill(p, 'SIGKILL');
      await until(() => children(launched.pid!).length === 1, 'the killed sleeps reaped (no zombie left)');
    } finally {
      for (const p of marked())
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      launched.stdin.end();
      bare.stdin.end();
    }
    const code = await new Promise((r) => launched.once('exit', r));
    expect(code).toBe(0);
  });

  it("exits with the program's exit code; a SIGKILL of the launcher alone takes the program with it", async () => {
    const { bin } = await subreaperLauncher();
    const seven = spawn(bin!, ['sh', '-c', 'exit 7'], { stdio: 'ignore' });
    expect(await new Promise((r) => seven.once('exit', r))).toBe(7);
    const launcher = spawn(bin!, ['sleep', '1000'], { stdio: 'ignore' });
    const program = await until(() => children(launcher.pid!)[0], 'the program started');
    launcher.kill('SIGKILL');
    await until(() => readProcStat(program) === null || readProcStat(program)?.state === 'Z', 'the program gone');
  });
});
