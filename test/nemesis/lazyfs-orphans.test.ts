// Stale lazyfs mounts on real FUSE mounts: a mount whose recorded runner is gone is unmounted and its daemon ended;
// one whose runner lives, or that records no runner (someone else's), is left mounted (the negative controls).
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { fuseAvailable, LazyMount } from '../../harness/nemesis/lazyfs.js';
import {
  LAZYFS_OWNER_FILE,
  lazyfsMountpoints,
  mountRecorded,
  recordLazyfsOwner,
  unmountStaleLazyfs,
} from '../../harness/nemesis/lazyfs-orphans.js';
import { readProcStat } from '../../harness/core/proc.js';
import { makeZombie } from '../helpers/zombie.js';

const noFuse = !fuseAvailable();
const root = mkdtempSync(path.join(tmpdir(), 'lazyfs-orphans-'));
const mounts: LazyMount[] = [];
afterAll(async () => {
  for (const m of mounts) await m.unmount();
  rmSync(root, { recursive: true, force: true });
});

const mountedNow = (): string[] => lazyfsMountpoints(readFileSync('/proc/self/mountinfo', 'utf8'));

/** PIDs whose argv serves `mountpoint` as a lazyfs daemon (lazyfs-<hash> BACKING MOUNTPOINT). */
function daemonsServing(mountpoint: string): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .filter((n) => {
      try {
        const argv = readFileSync(`/proc/${n}/cmdline`, 'utf8').split('\0');
        return path.basename(argv[0] ?? '').startsWith('lazyfs-') && argv[2] === mountpoint;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The daemons still serving `mountpoint` once none is, or 10 s have passed (a SIGKILLed one takes a moment to go). */
async function daemonsLeft(mountpoint: string): Promise<number[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const left = daemonsServing(mountpoint);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Record, as the runner of run folder `run`'s mounts, a process that has exited. */
async function recordDeadRunner(run: string): Promise<void> {
  const gone = execa('true');
  const pid = gone.pid!;
  await gone;
  writeFileSync(path.join(run, LAZYFS_OWNER_FILE), JSON.stringify({ pid, startTime: '1' }));
}

/** A run folder `name` with lazyfs mounted at <run>/store-live. */
async function runWithMount(name: string): Promise<{ run: string; m: LazyMount }> {
  const run = path.join(root, name);
  mkdirSync(run);
  const m = await LazyMount.mount(path.join(run, 'store'), path.join(run, 'store-live'));
  mounts.push(m);
  return { run, m };
}

describe('lazyfsMountpoints', () => {
  it('lists fuse.lazyfs-* mounts only, with mountinfo escapes decoded', () => {
    const info = [
      '44 26 0:39 / /tmp/a\\040b/store-live rw,nosuid - fuse.lazyfs-5514918f8f47 lazyfs-5514918f8f47 rw,user_id=0',
      '45 26 0:40 / /mnt/other rw - fuse.sshfs host:/ rw',
      '46 26 0:41 / /tmp/x rw shared:1 - fuse.lazyfs-aaaa lazyfs-aaaa rw',
    ].join('\n');
    expect(lazyfsMountpoints(info)).toEqual(['/tmp/a b/store-live', '/tmp/x']);
  });
});

describe.skipIf(noFuse)('unmountStaleLazyfs (real mounts)', () => {
  it("unmounts the mount of a runner that died (or is a zombie) and ends its daemon; leaves a live runner's and an unrecorded one", async () => {
    const dead = await runWithMount('dead');
    const undead = await runWithMount('zombie');
    const live = await runWithMount('live');
    const foreign = await runWithMount('foreign');
    // All four are mounted, and no other runner touches them yet: none records a runner. Once "dead" and "zombie" do,
    // a runner in another test file (soak run cleans stale mounts machine-wide at its start) may unmount them before
    // the call below (CI saw it once), so the call judges this listing, taken before, and the unmounts are checked
    // after it whoever made them.
    const info = readFileSync('/proc/self/mountinfo', 'utf8');
    for (const r of [dead, undead, live, foreign]) expect(lazyfsMountpoints(info)).toContain(r.m.mountpoint);
    // "dead": its recorded runner is a process that has exited
    await recordDeadRunner(dead.run);
    // "zombie": its recorded runner exited and is not reaped yet: gone, though its PID and start time still match
    const zombie = await makeZombie();
    writeFileSync(
      path.join(undead.run, LAZYFS_OWNER_FILE),
      JSON.stringify({ pid: zombie.pid, startTime: zombie.startTime }),
    );
    recordLazyfsOwner(live.run); // this process: alive
    expect(readProcStat(process.pid)).not.toBeNull();

    const unmounted = await unmountStaleLazyfs(info);
    zombie.holder.kill('SIGKILL');
    expect([...unmounted].sort()).toEqual([dead.m.mountpoint, undead.m.mountpoint].sort());
    expect(mountedNow()).not.toContain(dead.m.mountpoint);
    expect(mountedNow()).not.toContain(undead.m.mountpoint);
    expect(mountedNow()).toContain(live.m.mountpoint);
    expect(mountedNow()).toContain(foreign.m.mountpoint);
    expect(await daemonsLeft(dead.m.mountpoint)).toEqual([]);
    expect(daemonsServing(live.m.mountpoint)).toHaveLength(1);
    // and a second pass finds nothing more to do here (a runner another test killed may have left one elsewhere)
    expect((await unmountStaleLazyfs()).filter((m) => m.startsWith(`${root}/`))).toEqual([]);
  });

  it('mounts a run reached through a symlink (soak run --resume runs/latest) at its real path', async () => {
    const { run } = await runWithMount('linked-target');
    symlinkSync(run, path.join(root, 'latest'));
    const m = await LazyMount.mount(path.join(root, 'latest', 'store2'), path.join(root, 'latest', 'store2-live'));
    mounts.push(m);
    expect(m.mountpoint).toBe(path.join(run, 'store2-live'));
    expect(mountedNow()).toContain(m.mountpoint);
  });

  it("records its runner before it mounts: a dead runner's record is never beside a fresh mount; a failed mount leaves none", async () => {
    const run = path.join(root, 'resumed');
    mkdirSync(run);
    await recordDeadRunner(run);
    const mounting = mountRecorded(run, path.join(run, 'store'), 'store-live');
    // before the mount exists, the record already names this process (another runner's cleanup would spare it)
    expect(JSON.parse(readFileSync(path.join(run, LAZYFS_OWNER_FILE), 'utf8'))).toMatchObject({ pid: process.pid });
    const m = await mounting;
    mounts.push(m);
    expect(mountedNow()).toContain(m.mountpoint);
    expect(await unmountStaleLazyfs()).not.toContain(m.mountpoint);
    // a mount that cannot be made (its mountpoint's folder is a file) leaves no record behind
    const blocked = path.join(root, 'blocked');
    mkdirSync(blocked);
    writeFileSync(path.join(blocked, 'file'), '');
    await expect(mountRecorded(blocked, path.join(blocked, 'store'), 'file/store-live')).rejects.toThrow();
    expect(existsSync(path.join(blocked, LAZYFS_OWNER_FILE))).toBe(false);
  });
});
