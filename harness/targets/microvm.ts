// The microvm target: a real QEMU micro-VM over QMP; checkpoint = stop, RAM + device state, disk copy, cont.
import { mkdtempSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../errors.js';
import type { CheckpointSink, CheckpointSource } from '../store/types.js';
import { type AccelDecision, peekAccelerator, qemuVersion, qemuVersionSync, resolveAccelerator } from './accel.js';
import { FULL_HEARTBEAT_REQUEST } from './microvm-console.js';
import { copyDisk, createDisk } from './microvm-disk.js';
import { buildImage, cachedImage, type GuestImage, vmImagesDir } from './microvm-image.js';
import { migrateFromStream, migrateToFile, raiseMigrationBandwidth } from './microvm-migrate.js';
import { type MicrovmOptions, parseMicrovmOptions } from './microvm-options.js';
import { type Accelerator, QemuProcess } from './microvm-qemu.js';
import { hostTscKhz } from './microvm-tsc.js';
import { QmpClient } from './qmp.js';
import type { CheckpointOptions, CheckpointResult, Heartbeat, Target, TargetContext, TargetInfo } from './target.js';

const LIFETIME_MS = 7 * 24 * 3600_000;
const KVM_PROBE_MS = 8_000;

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
  private readonly listeners = new Set<(hb: Heartbeat) => void>();
  private readonly waiters = new Set<(hb: Heartbeat) => void>();
  private qemu: QemuProcess | undefined;
  private qmp: QmpClient | undefined;
  private image: GuestImage | undefined;
  private previewImage: GuestImage | undefined;
  private accel: AccelDecision | undefined;
  private version = 'unknown';
  private tscKhz: number | undefined;
  private lastStep = -1;
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
    const first = this.nextHeartbeat((hb) => hb.full, this.opts.bootTimeoutMs, 'boot: waiting for the first full heartbeat');
    first.catch(() => {}); // observed below; avoids an unhandled rejection if start() throws first
    await this.start(false);
    await first;
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    const { qmp } = this.running();
    const n = ++this.seq;
    const ramFile = this.file(`ram-${n}.bin`);
    const diskCopy = this.diskPath === undefined ? undefined : this.file(`disk-${n}.qcow2`);
    const skew = opts.skewMs > 0 && diskCopy !== undefined;
    let pausedNs = 0n;
    try {
      if (skew && diskCopy !== undefined && this.diskPath !== undefined) {
        // Negative control: the filesystem at t (copied during a brief pause), memory and tool state at t + skewMs.
        const t = process.hrtime.bigint();
        await qmp.execute('stop');
        await copyDisk(this.diskPath, diskCopy);
        await qmp.execute('cont');
        pausedNs += process.hrtime.bigint() - t;
        await sleep(opts.skewMs);
      }
      const t = process.hrtime.bigint();
      await qmp.execute('stop');
      const ramBytes = await migrateToFile(qmp, this.sock('migrate-out.sock'), ramFile, this.opts.migrateTimeoutMs);
      if (!skew && diskCopy !== undefined && this.diskPath !== undefined) await copyDisk(this.diskPath, diskCopy);
      const step = this.lastStep;
      await qmp.execute('cont');
      pausedNs += process.hrtime.bigint() - t;

      const w = process.hrtime.bigint();
      const record: MachineRecord = { memoryMiB: this.opts.memoryMiB, disk: this.opts.disk, accelerator: this.accel!.accel, imageHash: this.image!.hash };
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
        },
      };
    } catch (err) {
      throw this.wrap('checkpoint', err);
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
      throw this.wrap('restore', err);
    }
  }

  onHeartbeat(listener: (hb: Heartbeat) => void): void {
    this.listeners.add(listener);
  }

  requestFullHeartbeat(): void {
    this.qemu?.writeConsole(FULL_HEARTBEAT_REQUEST);
  }

  async destroy(): Promise<void> {
    this.qmp?.close();
    await this.qemu?.kill();
    this.qmp = undefined;
    this.qemu = undefined;
    await rm(this.file('disk.qcow2'), { force: true });
    for (const f of ['qmp.sock', 'migrate-out.sock', 'migrate-in.sock']) await rm(this.sock(f), { force: true });
    if (this.socketDir !== undefined) await rm(this.socketDir, { recursive: true, force: true });
    this.socketDir = undefined;
  }

  describe(): TargetInfo {
    if (this.image === undefined) this.preview();
    return {
      accelerator: this.accel?.accel ?? 'unresolved',
      acceleratorReason: this.accel?.reason ?? 'not booted yet',
      qemuVersion: this.version,
      imageHash: (this.image ?? this.previewImage)?.hash ?? 'unbuilt',
      kernelPackage: (this.image ?? this.previewImage)?.kernelPackage ?? 'unknown',
      memoryMiB: this.opts.memoryMiB,
      disk: this.opts.disk,
      diskMiB: this.opts.disk ? this.opts.diskMiB : 0,
    };
  }

  /** QEMU pid (tests use it to SIGKILL the guest alone). */
  get qemuPid(): number | undefined {
    return this.qemu?.pid;
  }

  /** Best-effort facts before boot/restore (the host reports describe() first): cached image, cached probe. */
  private preview(): void {
    try {
      const image = cachedImage();
      if (this.version === 'unknown') this.version = qemuVersionSync(this.opts.qemuBinary);
      if (image === undefined) return;
      this.accel ??= peekAccelerator(this.opts.accel, this.probeCacheFile(), this.version, image.hash);
      this.previewImage = image;
    } catch {
      // describe() must not throw; boot() reports the real problem
    }
  }

  private probeCacheFile(): string {
    return path.join(vmImagesDir(), 'build', 'accel-probe.json');
  }

  private async prepare(): Promise<void> {
    if (this.image !== undefined) return;
    this.version = await qemuVersion(this.opts.qemuBinary);
    this.image = await buildImage();
    const image = this.image;
    this.accel = await resolveAccelerator(this.opts.accel, {
      cacheFile: this.probeCacheFile(),
      qemuVersion: this.version,
      imageHash: image.hash,
      probe: () => this.probeKvm(image),
    });
    if (this.accel.accel === 'tcg') this.tscKhz = await hostTscKhz();
  }

  /** Boot a throwaway RAM-only guest under KVM; it passes if a heartbeat arrives within KVM_PROBE_MS. */
  private async probeKvm(image: GuestImage): Promise<boolean> {
    let seen = false;
    const probe = new QemuProcess(
      { ...this.spec(image, 'kvm', true), disk: undefined, memoryMiB: 128, qmpSocket: this.sock('probe-qmp.sock') },
      () => (seen = true),
    );
    const deadline = Date.now() + KVM_PROBE_MS;
    while (!seen && probe.exitReason() === undefined && Date.now() < deadline) await sleep(50);
    await probe.kill();
    await rm(this.sock('probe-qmp.sock'), { force: true });
    return seen;
  }

  private spec(image: GuestImage, accel: Accelerator, incoming: boolean) {
    return {
      binary: this.opts.qemuBinary,
      accel,
      memoryMiB: this.opts.memoryMiB,
      kernel: image.kernel,
      initramfs: image.initramfs,
      stepMs: this.ctx.stepMs,
      tscKhz: this.tscKhz,
      disk: this.diskPath,
      qmpSocket: this.sock('qmp.sock'),
      incoming,
      maxLifetimeMs: LIFETIME_MS,
    };
  }

  private async start(incoming: boolean): Promise<void> {
    if (this.qemu !== undefined) throw new TargetError('microvm target already has a running guest: destroy() it first');
    const qemu = new QemuProcess(this.spec(this.image!, this.accel!.accel, incoming), (hb) => this.dispatch(hb));
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

  private dispatch(hb: Heartbeat): void {
    this.lastStep = hb.step;
    for (const w of this.waiters) w(hb);
    for (const l of this.listeners) l(hb);
  }

  /** Resolve with the next heartbeat matching `pred`; reject on timeout or when QEMU exits. */
  private nextHeartbeat(pred: (hb: Heartbeat) => boolean, timeoutMs: number, what: string): Promise<Heartbeat> {
    return new Promise<Heartbeat>((resolve, reject) => {
      const poll = setInterval(() => {
        if (this.qemu?.exitReason() !== undefined) done(new TargetError(`${what}: ${this.qemu.diagnostics()}`));
      }, 50);
      const timer = setTimeout(() => done(new TargetError(`${what}: none within ${timeoutMs} ms (${this.qemu?.diagnostics() ?? 'no QEMU'})`)), timeoutMs);
      const waiter = (hb: Heartbeat): void => {
        if (pred(hb)) done(undefined, hb);
      };
      const done = (err?: Error, hb?: Heartbeat): void => {
        clearInterval(poll);
        clearTimeout(timer);
        this.waiters.delete(waiter);
        if (err) reject(err);
        else resolve(hb!);
      };
      this.waiters.add(waiter);
    });
  }

  private wrap(what: string, err: unknown): Error {
    const diag = this.qemu?.diagnostics() ?? '';
    if (err instanceof TargetError) return diag === '' ? err : new TargetError(`${err.message} [${diag}]`, { cause: err });
    return new TargetError(`microvm ${what} failed: ${(err as Error).message}${diag === '' ? '' : ` [${diag}]`}`, { cause: err });
  }
}
