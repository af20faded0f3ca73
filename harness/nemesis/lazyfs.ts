// The lazy file system (native/lazyfs/, docs/lazyfs.md): built from C on demand, cached by source hash, mounted over a
// backing folder; a power-loss fault drops every write not yet fsynced, then the mount is made again.
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { sleep } from '../core/clock.js';
import { TargetError } from '../core/errors.js';
import { buildNative, nativeBinaryPath } from '../core/native-build.js';

const SOURCES = ['lazyfs.c', 'undo.c', 'lazyfs.h'];
/** The control file at the mount's root (native/lazyfs/lazyfs.h). */
export const LAZYFS_CTL = '.lazyfs-ctl';
const MOUNT_WAIT_MS = 15_000;

/** Is FUSE usable here (the /dev/fuse device exists)? */
export function fuseAvailable(): boolean {
  return existsSync('/dev/fuse');
}

/** Path of the lazyfs binary, compiled (gcc + pkg-config fuse3) into native/build/ once per source hash. */
export async function buildLazyfs(): Promise<string> {
  const built = nativeBinaryPath('lazyfs', SOURCES);
  if (existsSync(built)) return built;
  const flags = await execa('pkg-config', ['--cflags', '--libs', 'fuse3'], { reject: false, timeout: 10_000 });
  if (flags.exitCode !== 0)
    throw new TargetError('building lazyfs needs pkg-config and libfuse3-dev (Debian: pkg-config libfuse3-dev fuse3)');
  return buildNative('lazyfs', SOURCES, ['-Wno-format-truncation', ...flags.stdout.split(/\s+/)]);
}

function mounted(mountpoint: string): boolean {
  const lines = readFileSync('/proc/self/mountinfo', 'utf8').split('\n');
  return lines.some((l) => l.split(' ')[4] === mountpoint);
}

/** The errno a `failWrite` injects. */
export type InjectedErrno = 'ENOSPC' | 'EIO';

/** A lazyfs mount of `backing` at `mountpoint`; `crash()` is the power loss. */
export class LazyMount {
  private proc: ResultPromise | null = null;
  private stderr = '';
  /** How many power losses this mount has been through. */
  crashes = 0;

  private constructor(
    private readonly bin: string,
    readonly backing: string,
    readonly mountpoint: string,
  ) {}

  /** Build if needed and mount `backing` at `mountpoint` (both folders are created); resolves once mounted. */
  static async mount(backing: string, mountpoint: string): Promise<LazyMount> {
    if (!fuseAvailable()) throw new TargetError('lazyfs needs /dev/fuse (FUSE), which this machine does not have');
    mkdirSync(backing, { recursive: true });
    mkdirSync(mountpoint, { recursive: true });
    // Real paths: the kernel lists a mount by its real path (a run reached through `latest` is a symlink).
    const m = new LazyMount(await buildLazyfs(), realpathSync(backing), realpathSync(mountpoint));
    await m.start();
    return m;
  }

  private async start(): Promise<void> {
    this.stderr = '';
    const proc = execa(this.bin, [this.backing, this.mountpoint], { reject: false, stdin: 'ignore', stdout: 'ignore' });
    proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.proc = proc;
    const state = { exited: false };
    void proc.then(() => (state.exited = true));
    for (let waited = 0; !mounted(this.mountpoint); waited += 20) {
      if (state.exited || waited > MOUNT_WAIT_MS)
        throw new TargetError(`lazyfs did not mount ${this.mountpoint}: ${this.stderr.trim() || 'timed out'}`);
      await sleep(20);
    }
  }

  /** The N-th next write under the mount fails with `errno` (once). */
  failWrite(n: number, errno: InjectedErrno): void {
    writeFileSync(path.join(this.mountpoint, LAZYFS_CTL), `fail-write ${n} ${errno}\n`);
  }

  /** Cancel an injected write error that has not fired yet. */
  clearFailWrite(): void {
    writeFileSync(path.join(this.mountpoint, LAZYFS_CTL), 'clear\n');
  }

  /**
   * Power loss: drop every write and folder change not yet fsynced, then unmount and mount again. Call it only once
   * every process writing under the mount is gone (SIGKILLed and reaped).
   */
  async crash(): Promise<void> {
    writeFileSync(path.join(this.mountpoint, LAZYFS_CTL), 'crash\n');
    this.crashes++;
    await this.unmount();
    await this.start();
  }

  /** Unmount (lazily, so a straggler's open file does not block it) and wait for the daemon to end. */
  async unmount(): Promise<void> {
    if (this.proc === null) return;
    const proc = this.proc;
    this.proc = null;
    if (mounted(this.mountpoint))
      await execa('fusermount3', ['-u', '-z', this.mountpoint], { reject: false, timeout: 10_000 });
    const done = await Promise.race([proc.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) proc.kill('SIGKILL');
  }
}
