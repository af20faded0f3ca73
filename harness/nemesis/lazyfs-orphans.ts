// Stale lazyfs mounts: a runner that dies (SIGKILL, a crash) leaves its lazyfs mounts behind, with their daemons or
// dead (ENOTCONN). Each runner that mounts lazyfs records itself in its run folder (PID + process start time); the next
// run unmounts every lazyfs mount whose recorded runner is gone, and never one whose runner lives or that records none.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { processStart, sameProcessAlive } from '../core/proc.js';
import { LazyMount } from './lazyfs.js';

/** The file beside a run's lazyfs mountpoints (in the run folder) naming the runner that mounted them. */
export const LAZYFS_OWNER_FILE = 'lazyfs-owner.json';

/** The runner that mounted lazyfs under a run folder. */
export interface LazyfsOwner {
  pid: number;
  /** /proc start time of that PID (a recycled PID has another). */
  startTime: string;
}

/** Mountpoints of lazyfs mounts (fs type fuse.lazyfs-<hash>) in a /proc/self/mountinfo text, octal escapes decoded. */
export function lazyfsMountpoints(mountinfo: string): string[] {
  const out: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const [head, tail] = line.split(' - ');
    if (head === undefined || tail === undefined || !tail.startsWith('fuse.lazyfs')) continue;
    const mountpoint = head.split(' ')[4];
    if (mountpoint !== undefined)
      out.push(mountpoint.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))));
  }
  return out;
}

/** Record this process as the runner of run folder `runDir`'s lazyfs mounts. */
export function recordLazyfsOwner(runDir: string): void {
  const startTime = processStart(process.pid) ?? '';
  const owner: LazyfsOwner = { pid: process.pid, startTime };
  writeFileSync(path.join(runDir, LAZYFS_OWNER_FILE), `${JSON.stringify(owner)}\n`);
}

/**
 * Mount lazyfs over `backing` at `name` in run folder `runDir`, this process recorded as its runner first: a dead
 * runner's record left there (a resumed run's) would let a runner starting elsewhere at that moment take the fresh mount
 * for a stale one and unmount it. The record goes again if the mount fails.
 */
export async function mountRecorded(runDir: string, backing: string, name: string): Promise<LazyMount> {
  recordLazyfsOwner(runDir);
  try {
    return await LazyMount.mount(backing, path.join(runDir, name));
  } catch (err) {
    clearLazyfsOwner(runDir);
    throw err;
  }
}

/** Forget the record (the runner unmounted cleanly). */
export function clearLazyfsOwner(runDir: string): void {
  rmSync(path.join(runDir, LAZYFS_OWNER_FILE), { force: true });
}

/** The owner recorded beside `mountpoint`; null when none is (not a mount of this harness, or not ours to judge). */
function ownerOf(mountpoint: string): LazyfsOwner | null {
  try {
    const o = JSON.parse(readFileSync(path.join(path.dirname(mountpoint), LAZYFS_OWNER_FILE), 'utf8')) as unknown;
    const { pid, startTime } = (o ?? {}) as Partial<LazyfsOwner>;
    return typeof pid === 'number' && typeof startTime === 'string' ? { pid, startTime } : null;
  } catch {
    return null;
  }
}

/** Is the recorded runner still running (same PID, same start time, not a zombie: core/proc.ts)? */
function alive(owner: LazyfsOwner): boolean {
  return sameProcessAlive({ pid: owner.pid, start: owner.startTime === '' ? null : owner.startTime });
}

/** PIDs of lazyfs daemons serving `mountpoint` (argv: lazyfs-<hash> BACKING MOUNTPOINT). */
function daemonsOf(mountpoint: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0');
      if (path.basename(argv[0] ?? '').startsWith('lazyfs-') && argv[2] === mountpoint) pids.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return pids;
}

/**
 * Unmount every lazyfs mount whose recorded runner is gone (lazily: a straggler's open file does not block it) and
 * kill its daemon; returns the mountpoints unmounted. `mountinfo` is for tests.
 */
export async function unmountStaleLazyfs(mountinfo = readFileSync('/proc/self/mountinfo', 'utf8')): Promise<string[]> {
  const stale = lazyfsMountpoints(mountinfo).filter((m) => {
    const owner = ownerOf(m);
    return owner !== null && !alive(owner);
  });
  for (const m of stale) {
    const daemons = daemonsOf(m).map((pid) => ({ pid, start: processStart(pid) }));
    await execa('fusermount3', ['-u', '-z', m], { reject: false, timeout: 10_000 });
    const left = new Set(daemonsOf(m)); // only the same processes still serving it: one that ended may have been reused
    for (const { pid } of daemons.filter((d) => left.has(d.pid) && sameProcessAlive(d))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // it ended with its mount
      }
    }
  }
  return stale;
}
