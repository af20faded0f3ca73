// QemuProcess on a real QEMU: why it is gone (exit code with its stderr, a binary that cannot start, the lifetime bound,
// a kill), and that a process ending on its own or by an unhandled SIGTERM takes its QEMU along (negative control: a
// bare spawn's QEMU outlives it). QEMU is spawned with node:child_process (execa's import is off the cold restore path).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
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

  /** Run the fixture; resolves with its QEMU's pid once the fixture has ended (by itself, or by SIGTERM for `wait`). */
  const host = async (end: 'exit' | 'wait', how: 'qemu-process' | 'bare'): Promise<number> => {
    const sock = path.join(root, `host-${end}-${how}.sock`);
    const args = [fixturePath('qemu-host-exit.mjs'), image.kernel, image.initramfs, sock, end, how];
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const ended = new Promise<NodeJS.Signals | number | null>((resolve) =>
      child.once('exit', (code, signal) => resolve(signal ?? code)),
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    const pid = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk: string) => {
        out += chunk;
        const m = /^qemu (\d+)$/m.exec(out);
        if (m) resolve(Number(m[1]));
      });
      void ended.then(() => reject(new Error(`the fixture ended before printing its QEMU pid: ${out}`)));
    });
    expect(pidAlive(pid)).toBe(true);
    if (end === 'wait') child.kill('SIGTERM');
    else child.stdin.write('end\n'); // only now: a fixture that exited on a timer could take QEMU before the check above
    expect(await ended).toBe(end === 'wait' ? 'SIGTERM' : 0); // SIGTERM: ended by the signal, as without any handler
    return pid;
  };

  it.each([
    ['exit', 'a process that exits on its own'],
    ['wait', 'a process ended by a SIGTERM it does not handle'],
  ] as const)('%s: %s takes its QEMU along; negative control: a bare spawn outlives it', async (end, _what) => {
    expect(await goneWithin(await host(end, 'qemu-process'), 10_000)).toBe(true);
    const orphan = await host(end, 'bare');
    try {
      expect(await goneWithin(orphan, 1000)).toBe(false);
    } finally {
      process.kill(orphan, 'SIGKILL');
    }
  });
});
