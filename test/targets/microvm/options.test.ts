// Unit tests for the microvm target's options and QEMU command line (no QEMU needed).
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../harness/core/errors.js';
import { GuestPorts } from '../../../harness/targets/microvm/guest-ports.js';
import {
  freshEntropy,
  parseMicrovmOptions,
  parseMicrovmTargetOptions,
} from '../../../harness/targets/microvm/options.js';
import { qemuArgs, type QemuSpec } from '../../../harness/targets/microvm/qemu.js';
import { qemuSpec } from '../../../harness/targets/microvm/spec.js';

const spec: QemuSpec = {
  binary: 'qemu-system-x86_64',
  accel: 'tcg',
  memoryMiB: 256,
  kernel: '/k',
  initramfs: '/i',
  stepMs: 5,
  tscKhz: 2_445_000,
  disk: '/w/disk.qcow2',
  qmpSocket: '/w/qmp.sock',
  incoming: false,
  maxLifetimeMs: 1000,
};

describe('parseMicrovmOptions', () => {
  it('fills defaults', () => {
    expect(parseMicrovmOptions({})).toMatchObject({ memoryMiB: 256, disk: true, diskMiB: 128, accel: 'auto' });
  });

  it('ramSave: paused by default (live pre-copy is unsound under TCG: issue 16); background and live on request', () => {
    expect(parseMicrovmOptions({}).ramSave).toBe('paused');
    expect(parseMicrovmOptions({ ramSave: 'background' }).ramSave).toBe('background');
    expect(parseMicrovmOptions({ ramSave: 'live' }).ramSave).toBe('live');
    expect(() => parseMicrovmOptions({ ramSave: 'postcopy' })).toThrow(/targetOptions\.ramSave/);
  });

  it('the probe and wallClock: resync only on cold boots (a template guest boots without their ports)', () => {
    expect(parseMicrovmOptions({}).wallClock).toBe('free');
    expect(parseMicrovmTargetOptions({ probe: '/p', wallClock: 'resync' })).toMatchObject({
      probe: true,
      opts: { wallClock: 'resync' },
    });
    expect(() => parseMicrovmOptions({ fresh: 'template', wallClock: 'resync' })).toThrow(/targetOptions\.wallClock/);
    expect(() => parseMicrovmTargetOptions({ fresh: 'template', probe: '/p' })).toThrow(/targetOptions\.fresh/);
    expect(() => parseMicrovmTargetOptions({ probe: 'relative' })).toThrow(/targetOptions\.probe/);
  });

  it('entropy: fresh by default on cold boots (the seed port, ttyS2, is on), as-snapshot for templates', () => {
    expect(freshEntropy(parseMicrovmOptions({}))).toBe(true);
    expect(freshEntropy(parseMicrovmOptions({ entropy: 'as-snapshot' }))).toBe(false);
    expect(freshEntropy(parseMicrovmOptions({ fresh: 'template' }))).toBe(false);
    expect(() => parseMicrovmOptions({ fresh: 'template', entropy: 'fresh' })).toThrow(/targetOptions\.entropy/);
    expect(() => parseMicrovmOptions({ entropy: 'reseed' })).toThrow(/targetOptions\.entropy/);
    const sock = (name: string): string => `/w/${name}`;
    expect(GuestPorts.of(parseMicrovmOptions({}), false).sockets(sock)).toEqual({ clockSocket: '/w/clock.sock' });
    expect(GuestPorts.of(parseMicrovmOptions({ entropy: 'as-snapshot' }), false).sockets(sock)).toEqual({});
  });

  it('workload: steps by default; coding on cold boots only, on the kernel command line (TEST-ONLY break from the env)', () => {
    expect(parseMicrovmOptions({}).workload).toBe('steps');
    const coding = parseMicrovmOptions({ workload: 'coding' });
    expect(coding.workload).toBe('coding');
    expect(() => parseMicrovmOptions({ fresh: 'template', workload: 'coding' })).toThrow(/targetOptions\.workload/);
    expect(() => parseMicrovmOptions({ workload: 'npm' })).toThrow(/targetOptions\.workload/);
    const place = { image: { kernel: '/k', initramfs: '/i', hash: 'h', kernelPackage: 'p' }, accel: 'tcg' as const };
    const g = { ...place, stepMs: 5, tscKhz: undefined, disk: undefined, qmpSocket: '/q', incoming: false };
    const append = (o: typeof coding): string => {
      const a = qemuArgs(qemuSpec(o, g));
      return a[a.indexOf('-append') + 1]!;
    };
    expect(append(parseMicrovmOptions({}))).not.toContain('soak.work');
    expect(append(coding)).toMatch(/ soak\.work=coding( |$)/);
    const before = process.env.SOAK_TEST_WORK_BREAK;
    try {
      process.env.SOAK_TEST_WORK_BREAK = '7';
      expect(append(coding)).toMatch(/ soak\.work=coding:7( |$)/);
      process.env.SOAK_TEST_WORK_BREAK = '7 soak.disk=0'; // not a number: ignored, never spliced into the command line
      expect(append(coding)).toMatch(/ soak\.work=coding( |$)/);
    } finally {
      if (before === undefined) delete process.env.SOAK_TEST_WORK_BREAK;
      else process.env.SOAK_TEST_WORK_BREAK = before;
    }
  });

  it('dirtyKiBPerStep: off by default, on the kernel command line when set, cold boots only, bounded', () => {
    expect(parseMicrovmOptions({}).dirtyKiBPerStep).toBe(0);
    const g = {
      image: { kernel: '/k', initramfs: '/i', hash: 'h', kernelPackage: 'p' },
      accel: 'tcg' as const,
      stepMs: 5,
      tscKhz: undefined,
      disk: undefined,
      qmpSocket: '/q',
      incoming: false,
    };
    const append = (raw: Record<string, unknown>): string => {
      const a = qemuArgs(qemuSpec(parseMicrovmOptions(raw), g));
      return a[a.indexOf('-append') + 1]!;
    };
    expect(append({})).not.toContain('soak.dirty_kib');
    expect(append({ dirtyKiBPerStep: 256 })).toMatch(/ soak\.dirty_kib=256( |$)/);
    expect(() => parseMicrovmOptions({ fresh: 'template', dirtyKiBPerStep: 8 })).toThrow(
      /targetOptions\.dirtyKiBPerStep/,
    );
    for (const bad of [-1, 1.5, 65_537, '8'])
      expect(() => parseMicrovmOptions({ dirtyKiBPerStep: bad })).toThrow(/targetOptions\.dirtyKiBPerStep/);
  });

  it('reports every invalid field by its dot-path', () => {
    let err: unknown;
    try {
      parseMicrovmOptions({ memoryMiB: 'lots', accel: 'hvf', extra: 1 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('targetOptions.memoryMiB');
    expect(msg).toContain('targetOptions.accel');
    expect(msg).toMatch(/extra/);
  });
});

describe('qemuArgs', () => {
  it('builds a microvm with no network, serial on stdio, QMP on the socket, virtio-blk disk', () => {
    const a = qemuArgs(spec);
    expect(a.slice(0, 4)).toEqual(['-M', 'microvm', '-accel', 'tcg']);
    expect(a).toContain('-nodefaults');
    expect(a).not.toContain('-netdev');
    expect(a[a.indexOf('-qmp') + 1]).toBe('unix:/w/qmp.sock,server=on,wait=off');
    expect(a[a.indexOf('-device') + 1]).toBe('virtio-blk-device,drive=disk0');
    const append = a[a.indexOf('-append') + 1]!;
    expect(append).toContain('soak.step_ms=5');
    expect(append).toContain('soak.disk=1');
    expect(append).toContain('tsc_early_khz=2445000');
    expect(a).not.toContain('-incoming');
    expect(append).not.toMatch(/soak\.(probe|clock)/);
    expect(a.join(' ')).not.toContain('isa-serial');
  });

  it('the probe on ttyS1 and the clock resync on ttyS2: their own ISA serial ports, the console untouched', () => {
    const a = qemuArgs({ ...spec, probeSocket: '/w/probe.sock', clockSocket: '/w/clock.sock' });
    const append = a[a.indexOf('-append') + 1]!;
    expect(append).toContain('soak.probe=1');
    expect(append).toContain('soak.clock=1');
    const args = a.join(' ');
    expect(args).toContain('-chardev socket,id=ser1,path=/w/probe.sock,server=on,wait=off');
    expect(args).toContain('-device isa-serial,chardev=ser1,index=1');
    expect(args).toContain('-chardev socket,id=ser2,path=/w/clock.sock,server=on,wait=off');
    expect(args).toContain('-device isa-serial,chardev=ser2,index=2');
    expect(args).toContain('-serial chardev:ser0');
  });

  it('restores into the same machine, paused, waiting for the incoming stream', () => {
    const a = qemuArgs({ ...spec, incoming: true, disk: undefined, accel: 'kvm' });
    expect(a.slice(-3)).toEqual(['-S', '-incoming', 'defer']);
    expect(a).not.toContain('-drive');
    const append = a[a.indexOf('-append') + 1]!;
    expect(append).toContain('soak.disk=0');
    expect(append).not.toContain('tsc_early_khz');
  });
});
