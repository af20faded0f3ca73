// The microvm target: a real QEMU micro-VM over QMP; checkpoint = stop, RAM + device state, disk copy, cont.
import { mkdtempSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../errors.js';
import type { CheckpointSink, CheckpointSource } from '../store/types.js';
import { FULL_HEARTBEAT_REQUEST } from './microvm-console.js';
import { copyDisk, createDisk } from './microvm-disk.js';
import { HeartbeatHub } from './microvm-heartbeats.js';
import { type GuestEnv, previewGuestEnv, resolveGuestEnv } from './microvm-env.js';
import type { GuestImage } from './microvm-image.js';
import { migrateFromStream, migrateToFile, raiseMigrationBandwidth } from './microvm-migrate.js';
import { type MicrovmOptions, parseMicrovmOptions } from './microvm-options.js';
import { type Accelerator, QemuProcess } from './microvm-qemu.js';
import { probeKvmBoot } from './microvm-probe.js';
import { QmpClient } from './qmp.js';
import type { CheckpointOptions, CheckpointResult, Heartbeat, Target, TargetContext, TargetInfo } from './target.js';

const LIFETIME_MS = 7 * 24 * 3600_000;

/** Checkpoint part holding the machine shape, checked on restore (QEMU must be rebuilt with the same RAM and devices). */
interface MachineRecord {
  memoryMiB: number;
  disk: boolean;
  accelerator: Accelerator;
  imageHash: string;
}

export function createMicrovmTarget(ctx: TargetContext): Target {
  return new MicrovmTarget(ctx, parseMicrovmOptions(ctx.options));
}

class MicrovmTarget implements Target {
  readonly kind = 'microvm';
  private readonly hub = new HeartbeatHub();
  private qemu: QemuProcess | undefined;
  private qmp: QmpClient | undefined;
  private env: GuestEnv | undefined;
  private preview: Partial<GuestEnv> | undefined;
  private seq = 0;
  private socketDir: string | undefined;

  constructor(private readonly ctx: TargetContext, private readonly opts: MicrovmOptions) {}

  private file(name: string): string {
    return path.join(this.ctx.workDir, name);
  }

  /** Unix sockets live in workDir, or in a private 0700 temp dir when workDir is too deep for a socket path. */
  private sock(name: string): string {
    if (path.join(this.ctx.workDir, 'migrate-out.sock').length <= 100) return this.file(name);
    this.socketDir ??= mkdtempSync(path.join(os.tmpdir(), 'soak-mv-'));
    return path.join(this.socketDir, name);
  }

  private get diskPath(): string | undefined {
    return this.opts.disk ? this.file('disk.qcow2') : undefined;
  }

  async boot(): Promise<void> {
    await this.prepare();
    if (this.diskPath !== undefined) await createDisk(this.diskPath, this.opts.diskMiB);
    const first = this.hub.next(
      (hb) => hb.full,
      this.opts.bootTimeoutMs,
      'boot: waiting for the first full heartbeat',
      () => this.qemu?.exitReason(),
      () => this.qemu?.diagnostics() ?? 'no QEMU',
    );
    first.catch(() => {}); // observed below; avoids an unhandled rejection if start() throws first
    try {
      await this.start(false);
      await first;
    } catch (err) {
      const wrapped = this.wrap('boot', err);
      await this.stopGuest();
      throw wrapped;
    }
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    const { qmp } = this.running();
    const n = ++this.seq;
    const ramFile = this.file(`ram-${n}.bin`);
    const diskCopy = this.diskPath === undefined ? undefined : this.file(`disk-${n}.qcow2`);
    const skew = opts.skewMs > 0 && diskCopy !== undefined;
    let pausedNs = 0n;
    let diskStep = -1;
    try {
      if (skew && diskCopy !== undefined && this.diskPath !== undefined) {
        // Negative control: the filesystem at t (copied during a brief pause), memory and tool state at t + skewMs.
        const t = process.hrtime.bigint();
        await qmp.execute('stop');
        await copyDisk(this.diskPath, diskCopy);
        await sleep(10); // let heartbeats already written before the stop reach us, so diskStep is exact
        diskStep = this.hub.lastStep;
        await qmp.execute('cont');
        pausedNs += process.hrtime.bigint() - t;
        await sleep(opts.skewMs);
      }
      const t = process.hrtime.bigint();
      await qmp.execute('stop');
      const ramBytes = await migrateToFile(qmp, this.sock('migrate-out.sock'), ramFile, this.opts.migrateTimeoutMs);
      if (!skew && diskCopy !== undefined && this.diskPath !== undefined) await copyDisk(this.diskPath, diskCopy);
      const step = this.hub.lastStep;
      await qmp.execute('cont');
      pausedNs += process.hrtime.bigint() - t;

      const w = process.hrtime.bigint();
      const record: MachineRecord = { memoryMiB: this.opts.memoryMiB, disk: this.opts.disk, accelerator: this.env!.accel.accel, imageHash: this.env!.image.hash };
      await sink.put('microvm.json', Buffer.from(JSON.stringify(record)));
      await sink.putFile('ram', ramFile);
      if (diskCopy !== undefined) await sink.putFile('disk', diskCopy);
      const storeWriteMs = Number(process.hrtime.bigint() - w) / 1e6;
      return {
        step,
        pauseMs: Number(pausedNs) / 1e6,
        meta: {
          accelerator: record.accelerator,
          guestRamMiB: this.opts.memoryMiB,
          ramStreamBytes: ramBytes,
          diskBytes: diskCopy === undefined ? 0 : (await stat(diskCopy)).size,
          storeWriteMs: Math.round(storeWriteMs * 10) / 10,
          skewAppliedMs: skew ? opts.skewMs : 0,
          /** Steps the guest reported between the disk capture and the RAM capture (skew only; 0 = no skew visible). */
          skewSteps: skew ? step - diskStep : 0,
        },
      };
    } catch (err) {
      const wrapped = this.wrap('checkpoint', err);
      // Best effort: a failed save of a live guest must not leave it frozen.
      if (this.qemu?.exitReason() === undefined) {
        await qmp.execute('migrate_cancel').catch(() => {});
        await qmp.execute('cont').catch(() => {});
      }
      throw wrapped;
    } finally {
      await rm(ramFile, { force: true });
      if (diskCopy !== undefined) await rm(diskCopy, { force: true });
    }
  }

  async restore(source: CheckpointSource): Promise<void> {
    await this.prepare();
    const parts = source.parts();
    if (!parts.includes('ram') || !parts.includes('microvm.json')) {
      throw new TargetError(`checkpoint ${source.seq} is not a microvm checkpoint (parts: ${parts.join(', ')})`);
    }
    const record = JSON.parse((await source.get('microvm.json')).toString('utf8')) as MachineRecord;
    if (record.memoryMiB !== this.opts.memoryMiB || record.disk !== this.opts.disk) {
      throw new TargetError(
        `checkpoint ${source.seq} was taken with memoryMiB=${record.memoryMiB} disk=${record.disk}; ` +
          `targetOptions say memoryMiB=${this.opts.memoryMiB} disk=${this.opts.disk}: restore needs the same machine`,
      );
    }
    try {
      if (this.diskPath !== undefined) await source.writeFile('disk', this.diskPath);
      await this.start(true);
      const { qmp, qemu } = this.running();
      await migrateFromStream(qmp, this.sock('migrate-in.sock'), source.stream('ram'), this.opts.migrateTimeoutMs);
      await qmp.execute('cont');
      // The guest does not know it was restored: ask for the full heartbeat the checker verifies.
      qemu.writeConsole(FULL_HEARTBEAT_REQUEST);
    } catch (err) {
      const wrapped = this.wrap('restore', err);
      await this.stopGuest();
      throw wrapped;
    }
  }

  onHeartbeat(listener: (hb: Heartbeat) => void): void {
    this.hub.on(listener);
  }

  requestFullHeartbeat(): void {
    this.qemu?.writeConsole(FULL_HEARTBEAT_REQUEST);
  }

  async destroy(): Promise<void> {
    await this.stopGuest();
    await rm(this.file('disk.qcow2'), { force: true });
    for (const f of ['qmp.sock', 'migrate-out.sock', 'migrate-in.sock']) await rm(this.sock(f), { force: true });
    if (this.socketDir !== undefined) await rm(this.socketDir, { recursive: true, force: true });
    this.socketDir = undefined;
  }

  describe(): TargetInfo {
    const env: Partial<GuestEnv> = this.env ?? (this.preview ??= previewGuestEnv(this.opts.qemuBinary, this.opts.accel));
    return {
      accelerator: env.accel?.accel ?? 'unresolved',
      acceleratorReason: env.accel?.reason ?? 'not booted yet',
      qemuVersion: env.qemuVersion ?? 'unknown',
      imageHash: env.image?.hash ?? 'unbuilt',
      kernelPackage: env.image?.kernelPackage ?? 'unknown',
      memoryMiB: this.opts.memoryMiB,
      disk: this.opts.disk,
      diskMiB: this.opts.disk ? this.opts.diskMiB : 0,
    };
  }

  /** QEMU pid (tests use it to SIGKILL the guest alone). */
  get qemuPid(): number | undefined {
    return this.qemu?.pid;
  }

  /** SIGKILL QEMU (if any) and forget it; destroy() and failed boots/restores use this. */
  private async stopGuest(): Promise<void> {
    this.qmp?.close();
    await this.qemu?.kill();
    this.qmp = undefined;
    this.qemu = undefined;
  }

  private async prepare(): Promise<void> {
    this.env ??= await resolveGuestEnv(this.opts.qemuBinary, this.opts.accel, (image) =>
      probeKvmBoot(this.spec(image, 'kvm', false), this.sock('probe-qmp.sock')),
    );
  }

  private spec(image: GuestImage, accel: Accelerator, incoming: boolean) {
    return {
      binary: this.opts.qemuBinary,
      accel,
      memoryMiB: this.opts.memoryMiB,
      kernel: image.kernel,
      initramfs: image.initramfs,
      stepMs: this.ctx.stepMs,
      tscKhz: this.env?.tscKhz,
      disk: this.diskPath,
      qmpSocket: this.sock('qmp.sock'),
      incoming,
      maxLifetimeMs: LIFETIME_MS,
    };
  }

  private async start(incoming: boolean): Promise<void> {
    if (this.qemu !== undefined) throw new TargetError('microvm target already has a running guest: destroy() it first');
    const qemu = new QemuProcess(this.spec(this.env!.image, this.env!.accel.accel, incoming), (hb) => this.hub.dispatch(hb));
    this.qemu = qemu;
    try {
      this.qmp = await QmpClient.connect(this.sock('qmp.sock'), { timeoutMs: 15_000, abortReason: () => qemu.exitReason() });
      if (!incoming) await raiseMigrationBandwidth(this.qmp);
      else await raiseMigrationBandwidth(this.qmp).catch(() => {}); // also raises it for the next save
    } catch (err) {
      throw this.wrap('starting QEMU', err);
    }
  }

  private running(): { qemu: QemuProcess; qmp: QmpClient } {
    const { qemu, qmp } = this;
    if (qemu === undefined || qmp === undefined) throw new TargetError('microvm target has no guest: call boot() or restore() first');
    const gone = qemu.exitReason();
    if (gone !== undefined) throw new TargetError(`the guest's QEMU is gone (${qemu.diagnostics()})`);
    return { qemu, qmp };
  }

  private wrap(what: string, err: unknown): Error {
    const diag = this.qemu?.diagnostics() ?? '';
    if (err instanceof TargetError) return diag === '' ? err : new TargetError(`${err.message} [${diag}]`, { cause: err });
    return new TargetError(`microvm ${what} failed: ${(err as Error).message}${diag === '' ? '' : ` [${diag}]`}`, { cause: err });
  }
}
