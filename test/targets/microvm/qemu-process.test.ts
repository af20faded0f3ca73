// QemuProcess on a real QEMU: why it is gone (exit code with its stderr, a binary that cannot start, the lifetime bound,
// a kill), and that a host ending on its own takes its QEMU along (negative control: without the host's exit hook QEMU
// outlives it). QEMU is spawned with node:child_process (execa's import is off the cold restore path).
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../../../harness/core/proc.js';
import { buildImage, type GuestImage } from '../../../harness/targets/guest/image.js';
import { QemuProcess, type QemuSpec } from '../../../harness/targets/microvm/qemu.js';
import { hasQemu } from '../../helpers/qemu.js';
import { fixturePath } from '../../helpers/paths.js';

const qemuPresent = hasQemu();
let root = '';
let image: GuestImage;

const spec = (over: Partial<QemuSpec> = {}): QemuSpec => ({
  binary: 'qemu-system-x86_64',
  accel: 'tcg',
  memoryMiB: 64,
  kernel: image.kernel,
  initramfs: image.initramfs,
  stepMs: 5,
  qmpSocket: path.join(root, 'qmp.sock'),
  incoming: true, // paused, waiting for a migration that never comes: it runs until killed
  maxLifetimeMs: 120_000,
  ...over,
});

/** Wait until `pid` is gone (a SIGKILLed child of an exited parent is reaped by init), up to `ms`. */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!pidAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !pidAlive(pid);
}

describe.skipIf(!qemuPresent)('QemuProcess (real QEMU)', () => {
  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'qemu-process-'));
    image = await buildImage();
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('a QEMU that refuses its command line: exited with its code, and its stderr is in the diagnostics', async () => {
    const q = new QemuProcess(spec({ kernel: path.join(root, 'no-such-vmlinuz') }), () => {});
    await q.exited;
    expect(q.exitReason()).toMatch(/^exited with code [1-9]/);
    expect(q.diagnostics()).toContain('no-such-vmlinuz');
  });

  it('a binary that cannot be started is named as such', async () => {
    const q = new QemuProcess(spec({ binary: path.join(root, 'no-such-qemu') }), () => {});
    await q.exited;
    expect(q.exitReason()).toMatch(/^could not be started \(.*ENOENT/);
    q.writeConsole('F'); // a gone QEMU's console swallows writes
  });

  it('the lifetime bound SIGKILLs a QEMU that outlives it', async () => {
    const q = new QemuProcess(spec({ maxLifetimeMs: 300 }), () => {});
    const pid = q.pid!;
    await q.exited;
    expect(q.exitReason()).toBe('killed: lifetime timeout');
    expect(await goneWithin(pid, 10_000)).toBe(true);
  });

  it('kill() SIGKILLs it and resolves once it is gone', async () => {
    const q = new QemuProcess(spec(), () => {});
    const pid = q.pid!;
    expect(pidAlive(pid)).toBe(true);
    await q.kill();
    expect(q.exitReason()).toBe('killed by SIGKILL');
    expect(await goneWithin(pid, 10_000)).toBe(true);
  });

  const hostThatExits = async (flag: string[]): Promise<number> => {
    const sock = path.join(root, `host-${flag.length}.sock`);
    const args = [fixturePath('qemu-host-exit.mjs'), image.kernel, image.initramfs, sock, ...flag];
    const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
    const pid = Number(/^qemu (\d+)$/m.exec(stdout)?.[1]);
    expect(pid).toBeGreaterThan(0);
    return pid;
  };

  it('a host that ends on its own takes its QEMU along; negative control: without its exit hook QEMU outlives it', async () => {
    expect(await goneWithin(await hostThatExits([]), 10_000)).toBe(true);
    const orphan = await hostThatExits(['--no-exit-hook']);
    try {
      expect(await goneWithin(orphan, 1000)).toBe(false);
    } finally {
      process.kill(orphan, 'SIGKILL');
    }
  });
});
