// The run's memory cgroup (cgroup v1 memory controller; the memory-pressure fault): made under the cgroup the runner
// runs in (<its memory cgroup>/keepstate-soak/<runId>.<runner pid>.<runner start time>: the owner in the name, so two
// runs never share one), the sessions' hosts join it, its limit is lowered and lifted, and it is removed at run end.
// One a killed runner left is swept by a later run: its tasks SIGKILLed, its limit lifted, the folder removed.
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { processStart } from '../core/proc.js';

/** TEST-ONLY: the folder cgroups are made under (a folder that is not a memory cgroup: the refusal's test). */
export const MEMORY_CGROUP_ROOT = 'SOAK_TEST_MEMORY_CGROUP_ROOT';
/** TEST-ONLY: the kernel's OOM killer is disabled in the run's cgroup (a squeeze where nothing dies: its control). */
export const MEMORY_OOM_DISABLED = 'SOAK_TEST_MEMORY_OOM_DISABLED';

const V1 = '/sys/fs/cgroup/memory';
const FOLDER = 'keepstate-soak';

/** The memory cgroup this process runs in (cgroup v1), as a folder: where the run's is made. */
function ownCgroup(): string {
  const line = readFileSync('/proc/self/cgroup', 'utf8')
    .split('\n')
    .find((l) => l.split(':')[1]?.split(',').includes('memory'));
  return path.join(V1, line?.split(':').slice(2).join(':') ?? '/');
}

/** Where this runner makes (and sweeps) run cgroups: `<its own memory cgroup>/keepstate-soak`. */
export function cgroupParent(env: NodeJS.ProcessEnv = process.env): string {
  const base = env[MEMORY_CGROUP_ROOT] ?? (existsSync(`${V1}/memory.limit_in_bytes`) ? ownCgroup() : V1);
  return path.join(base, FOLDER);
}

/** Why no memory cgroup can be used here (one line), or null when one can. */
export function memoryCgroupIssue(env: NodeJS.ProcessEnv = process.env): string | null {
  const base = path.dirname(cgroupParent(env));
  const why = 'memory-pressure needs a writable cgroup v1 memory controller';
  if (process.getuid?.() !== 0 && env[MEMORY_CGROUP_ROOT] === undefined) return `${why}: not running as root`;
  if (!existsSync(path.join(base, 'memory.limit_in_bytes')) || !existsSync(path.join(base, 'memory.oom_control')))
    return `${why}: ${base} is not a memory cgroup (is the memory controller mounted at ${V1}?)`;
  try {
    accessSync(base, constants.W_OK);
  } catch {
    return `${why}: ${base} is not writable`;
  }
  return null;
}

/** The OOM state of a cgroup (memory.oom_control). */
export interface OomState {
  underOom: boolean;
  /** Processes the OOM killer killed in it so far. */
  oomKill: number;
}

/** One memory cgroup. */
export class MemoryCgroup {
  private constructor(readonly dir: string) {}

  /** Make the run's cgroup (named for `runId` and this runner), the OOM killer on unless the TEST-ONLY hook says. */
  static create(runId: string, env: NodeJS.ProcessEnv = process.env): MemoryCgroup {
    const owner = `${runId}.${process.pid}.${processStart(process.pid) ?? '0'}`;
    const cg = new MemoryCgroup(path.join(cgroupParent(env), owner));
    mkdirSync(cg.dir, { recursive: true });
    if (env[MEMORY_OOM_DISABLED] === '1') cg.write('memory.oom_control', '1');
    return cg;
  }

  private read(file: string): string {
    return readFileSync(path.join(this.dir, file), 'utf8');
  }

  private write(file: string, value: string): void {
    writeFileSync(path.join(this.dir, file), value);
  }

  /** Move process `pid` into the cgroup (its children from then on are born in it); false when it is gone. */
  join(pid: number): boolean {
    try {
      this.write('cgroup.procs', String(pid));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
      throw err;
    }
  }

  /** The processes in it now. */
  procs(): number[] {
    return this.read('cgroup.procs').split('\n').filter(Boolean).map(Number);
  }

  /** Bytes charged to it now. */
  usage(): number {
    return Number(this.read('memory.usage_in_bytes'));
  }

  oom(): OomState {
    const f = new Map(
      this.read('memory.oom_control')
        .trim()
        .split('\n')
        .map((l): [string, string] => [l.split(' ')[0] ?? '', l.split(' ')[1] ?? '']),
    );
    return { underOom: f.get('under_oom') === '1', oomKill: Number(f.get('oom_kill') ?? 0) };
  }

  /** Set the limit to `bytes`; false when the kernel cannot reclaim down to it (EBUSY: the limit is unchanged). */
  limit(bytes: number): boolean {
    try {
      this.write('memory.limit_in_bytes', String(bytes));
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EBUSY') return false;
      throw err;
    }
  }

  /** No limit any more. */
  lift(): void {
    this.write('memory.limit_in_bytes', '-1');
  }

  /**
   * Remove it: lift the limit, SIGKILL what is still in it (the run's own processes: its hosts are reaped before), and
   * remove the folder once the kernel shows it empty (bounded by `ms`); whether it is gone.
   */
  async remove(ms: number): Promise<boolean> {
    return removeCgroup(this.dir, ms);
  }
}

/** Lift, empty and remove the cgroup folder `dir` (bounded by `ms`); whether it is gone. */
async function removeCgroup(dir: string, ms: number): Promise<boolean> {
  const procs = (): number[] => {
    try {
      return readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  if (!existsSync(dir)) return true;
  try {
    writeFileSync(path.join(dir, 'memory.limit_in_bytes'), '-1');
  } catch {
    // the folder went meanwhile, or the limit is already off; the rmdir below says which
  }
  const deadline = Date.now() + ms;
  for (;;) {
    for (const pid of procs()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      rmdirSync(dir);
      return true;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return true;
      if (code !== 'EBUSY' || Date.now() > deadline) return false;
    }
    await new Promise((r) => setTimeout(r, 20)); // the kernel empties a cgroup as its killed tasks exit
  }
}

/** Remove every run cgroup under this runner's parent whose owner (runner pid and start time) no longer runs. */
export async function sweepStaleCgroups(ms: number, env: NodeJS.ProcessEnv = process.env): Promise<string[]> {
  const parent = cgroupParent(env);
  if (!existsSync(parent)) return [];
  const swept: string[] = [];
  for (const name of readdirSync(parent)) {
    const m = /\.(\d+)\.(\d+)$/.exec(name);
    if (!m || processStart(Number(m[1])) === m[2]) continue; // not a run's, or its runner still runs
    if (await removeCgroup(path.join(parent, name), ms)) swept.push(name);
  }
  return swept;
}

/** The kernel log's records (/dev/kmsg) as [sequence number, message]; null when it cannot be read here. */
function kernelLog(): [number, string][] | null {
  let fd: number;
  try {
    fd = openSync('/dev/kmsg', constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const out: [number, string][] = [];
  const buf = Buffer.alloc(16 * 1024);
  try {
    for (;;) {
      let n: number;
      try {
        n = readSync(fd, buf, 0, buf.length, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') continue; // a record was overwritten while we read: the next one follows
        if (code === 'EAGAIN') return out;
        return null;
      }
      const line = buf.toString('utf8', 0, n);
      const semi = line.indexOf(';');
      out.push([Number(line.split(',')[1]), line.slice(semi + 1).split('\n')[0]!]);
    }
  } finally {
    closeSync(fd);
  }
}

/** Where the OOM killer's own word on its victims is read: the kernel log from the moment this is made. */
export class OomWitness {
  private constructor(private readonly after: number) {}

  /** From now on; null when the kernel log cannot be read (the victims are then the processes seen dead). */
  static now(): OomWitness | null {
    const log = kernelLog();
    return log === null ? null : new OomWitness(log.at(-1)?.[0] ?? -1);
  }

  /** The PIDs the kernel logged it killed for a memory cgroup since this was made (none: not logged, or not yet). */
  killed(): number[] {
    return (kernelLog() ?? []).flatMap(([seq, msg]) => {
      const m = seq > this.after ? /^Memory cgroup out of memory: Killed process (\d+)/.exec(msg) : null;
      return m ? [Number(m[1])] : [];
    });
  }
}
