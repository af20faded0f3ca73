// The microvm target: a real QEMU micro-VM over QMP; checkpoint = stop, RAM + device state, disk copy, cont.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../../core/errors.js';
import type { CheckpointSink, CheckpointSource } from '../../store/types.js';
import { FULL_HEARTBEAT_REQUEST, RELEASE_REQUEST } from '../guest/console.js';
import { HoldRequests } from './hold.js';
import { type CheckpointGuest, checkpointFiles } from './checkpoint.js';
import { createDisk } from '../guest/disk.js';
import { type GuestEnv, previewGuestEnv } from './env.js';
import { readSessionEnv, sessionGuestEnv } from './env-cache.js';
import { HeartbeatHub } from '../guest/heartbeats.js';
import type { GuestImage } from '../guest/image.js';
import { requireWorkReport } from '../guest/work-image.js';
import { raiseMigrationBandwidth } from './migrate.js';
import { type MicrovmOptions, parseMicrovmOptions, parseMicrovmTargetOptions, type MicrovmEffects } from './options.js';
import { askFullHeartbeat, spawnGuest } from './guest-process.js';
import type { Accelerator } from '../guest/accel.js';
import type { QemuProcess, QemuSpec } from './qemu.js';
import { qemuSpec } from './spec.js';
import { probeKvmBoot } from './probe.js';
import { type RamIo, ramIoOf, setupRamCapture } from './ram.js';
import { loadRestoreRam } from './restore-ram.js';
import { checkRecord, machineRecord } from './record.js';
import { QmpClient } from './qmp.js';
import { standbyDisk, startFromTemplate } from './template-boot.js';
import { guestTemplate } from './template-save.js';
import type { TemplateSnapshot } from './template.js';
import { describeMicrovm } from './describe.js';
import type { Heartbeat } from '../../check/heartbeat.js';
import type { ProbeLine } from '../../check/survival.js';
import { GuestPorts } from './guest-ports.js';
import type { CheckpointOptions, CheckpointResult, Target, TargetContext, TargetInfo } from '../target.js';
import { type PhaseMarks, PhaseRecorder, RUNS_FROM } from '../phase-marks.js';
import { writeDisk } from './disk-handover.js';
import { wrapTargetError } from './wrap-error.js';
import { commitHotCopy, hotCopyDir, restoreSource, warmHashing } from './hot-copy.js';
import { runCheckpoint } from './checkpoint-run.js';

export function createMicrovmTarget(ctx: TargetContext): Target {
  const { opts, effects, probe, clockAfter } = parseMicrovmTargetOptions(ctx.options);
  return new MicrovmTarget(ctx, opts, effects, GuestPorts.of(opts, probe === true, clockAfter));
}

/** Build (or find cached) the template snapshot for these target options, without starting a session. */
export async function microvmTemplate(ctx: TargetContext): Promise<TemplateSnapshot> {
  const target = new MicrovmTarget(ctx, parseMicrovmOptions(ctx.options));
  return target.template().finally(() => target.destroy());
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
  private readonly holds = new HoldRequests();
  /** warmUp() started a QEMU that waits in `-incoming defer` for the restore. */
  private incomingReady = false;
  private restorePhases: PhaseRecorder | undefined;
  /** Where the last restore read its parts: `store`, `hot`, or a fallback with its reason (hot-copy.ts). */
  private restoredFrom: string | undefined;

  constructor(
    private readonly ctx: TargetContext,
    private readonly opts: MicrovmOptions,
    private readonly effects?: MicrovmEffects,
    /** The guest-state probe (targetOptions `probe`, ttyS1), the wall-clock resync and RNG seed (ttyS2). */
    private readonly ports = new GuestPorts({}),
  ) {}

  private readonly file = (name: string): string => path.join(this.ctx.workDir, name);

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
    const waiting = this.incomingReady && this.opts.fresh === 'template' && this.qemu?.exitReason() === undefined;
    if (this.incomingReady && !waiting) await this.stopGuest(); // a standby's QEMU can load a template, not boot
    this.incomingReady = false;
    const phases = (this.restorePhases = new PhaseRecorder()); // a template boot's phases (bench/template-start)
    await this.prepare();
    const template = this.opts.fresh === 'template' ? await this.template() : undefined;
    if (this.diskPath !== undefined && template === undefined)
      await createDisk(this.diskPath, this.opts.diskMiB, this.opts.diskFastCommit);
    const first = this.hub.next(
      (hb) => hb.full,
      this.opts.bootTimeoutMs,
      'boot: waiting for the first full heartbeat',
      () => this.qemu?.exitReason(),
      () => this.qemu?.diagnostics() ?? 'no QEMU',
    );
    first.catch(() => {}); // observed below; avoids an unhandled rejection if start() throws first
    try {
      if (template === undefined) await this.start(false);
      else
        await startFromTemplate({
          template,
          diskPath: this.diskPath,
          waiting,
          startIncoming: async (from) => (waiting || (await this.start(true, from)), this.running()),
          loadWithCat: this.opts.ramCapture === 'stream', // memfd sets a capability before loading: defer + socket
          migrateSocket: this.sock('migrate-in.sock'),
          timeoutMs: this.opts.migrateTimeoutMs,
          mark: (p) => phases.mark(p),
        });
      requireWorkReport(this.opts.workload, await first);
    } catch (err) {
      const wrapped = this.wrap('boot', err);
      await this.stopGuest();
      throw wrapped;
    }
  }

  async checkpoint(sink: CheckpointSink, opts: CheckpointOptions): Promise<CheckpointResult> {
    const { qmp, qemu } = this.running();
    const env = this.env!;
    const files = checkpointFiles(this.file(`ckpt-${++this.seq}`));
    const guest: CheckpointGuest = {
      qmp,
      opts: this.opts,
      record: machineRecord(this.opts, env.accel.accel, env.image.hash),
      diskPath: this.diskPath,
      lastStep: () => this.hub.lastStep,
      ramIo: () => this.ramIo(),
      hold: () => this.holds.request((t) => this.running().qemu.writeConsole(t)),
      release: () => qemu.writeConsole(RELEASE_REQUEST),
    };
    const hot = this.opts.hotCopy ? hotCopyDir(this.ctx.sessionDir) : undefined;
    return runCheckpoint(guest, qemu, files.prefix, sink, opts, hot, (err) => this.wrap('checkpoint', err));
  }

  /** Warm standby: a QEMU waiting in `-incoming defer` for a restore's RAM (or a template's); disk: disk-handover.ts. */
  async warmUp(): Promise<void> {
    await this.prepare();
    const template = this.opts.fresh === 'template' ? await this.template() : undefined;
    if (this.diskPath !== undefined) await standbyDisk(this.diskPath, template, this.opts);
    await this.start(true);
    if (this.opts.hotCopy) await warmHashing(); // a restore's first hash would pay for first use (guest/files.ts)
    this.incomingReady = true;
  }

  /** The checkpoint just taken was committed as `seq`: its staged hot copy (if any) now goes by that name. */
  async committed(seq: number): Promise<void> {
    if (this.opts.hotCopy) await commitHotCopy(hotCopyDir(this.ctx.sessionDir), seq);
  }

  async restore(stored: CheckpointSource): Promise<void> {
    const phases = (this.restorePhases = new PhaseRecorder());
    await this.prepare();
    phases.mark('env');
    await checkRecord(stored, this.opts);
    // hotCopy: the guest runs (`cont`) only on bytes that matched the store's digests (hot-copy.ts, restore-ram.ts)
    const { source, used, ...hot } = await restoreSource(this.opts, this.ctx.sessionDir, stored);
    this.restoredFrom = used;
    if (this.opts.hotCopy) phases.mark('source');
    this.hub.lastStep = source.step; // until the resumed guest's first heartbeat
    try {
      // a standby's QEMU that died while it waited is replaced by a new one (the restore then starts it cold)
      if (this.incomingReady && this.qemu?.exitReason() !== undefined) await this.stopGuest();
      const warm = this.incomingReady && this.qemu !== undefined;
      if (this.diskPath !== undefined) await writeDisk(source, this.diskPath, warm);
      phases.mark('disk');
      if (!warm) await this.start(true);
      this.incomingReady = false;
      phases.mark('qemu');
      const [mode, io, qemu] = [this.opts.ramCapture, this.ramIo('migrate-in.sock'), this.running().qemu];
      const replace = () =>
        this.stopGuest()
          .then(() => this.start(true))
          .then(() => this.ramIo('migrate-in.sock'));
      this.restoredFrom = (await loadRestoreRam({ mode, io, qemu, replace, phases }, source, stored, hot)) ?? used;
      phases.mark('ram');
      // The guest does not know it was restored: ask for the full heartbeat the checker verifies (guest-process.ts).
      const running = askFullHeartbeat(this.hub, this.running().qemu, this.opts.bootTimeoutMs);
      await sleep(5);
      phases.mark(RUNS_FROM);
      running(await this.running().qmp.execute('cont')); // the QEMU that loaded verified bytes (after a refusal, new)
      phases.mark('cont');
      this.ports.resumed(this.opts.bootTimeoutMs); // clock resync, then the probe's examination, once the guest runs
    } catch (err) {
      const wrapped = this.wrap('restore', err);
      await this.stopGuest();
      throw wrapped;
    }
  }

  readonly restoreMarks = (): PhaseMarks => this.restorePhases?.marks ?? {};
  readonly restoreSource = (): string | undefined => this.restoredFrom;
  readonly onHeartbeat = (listener: (hb: Heartbeat) => void): void => this.hub.on(listener);
  /** The probe's lines (guest-probe.ts): `ready` at boot, `examined` once after each restore, `error`. */
  readonly onProbe = (listener: (line: ProbeLine) => void): void => this.ports.onProbe(listener);
  readonly requestFullHeartbeat = (): void => this.qemu?.writeConsole(FULL_HEARTBEAT_REQUEST);

  async destroy(): Promise<void> {
    await this.stopGuest();
    await rm(this.file('disk.qcow2'), { force: true });
    for (const f of ['qmp.sock', 'migrate-out.sock', 'migrate-in.sock', 'probe.sock', 'clock.sock'])
      await rm(this.sock(f), { force: true });
    if (this.socketDir !== undefined) await rm(this.socketDir, { recursive: true, force: true });
    this.socketDir = undefined;
  }

  describe(): TargetInfo {
    // a later host of the session takes the environment its first host saved (no `qemu --version`, no recipe hash)
    this.env ??= readSessionEnv(this.ctx.sessionDir, this.opts.qemuBinary, this.opts.accel);
    return describeMicrovm(
      this.env ?? (this.preview ??= previewGuestEnv(this.opts.qemuBinary, this.opts.accel, this.opts.workload)),
      this.opts,
    );
  }

  /** This guest's template snapshot, built now if it is not cached (template-mode boots; `soak image build --template`). */
  async template(): Promise<TemplateSnapshot> {
    await this.prepare();
    const env = this.env!;
    return guestTemplate(env, this.spec(env.image, env.accel.accel, false), this.opts, this.sock('qmp.sock'));
  }

  /** QEMU pid (tests use it to SIGKILL the guest alone). */
  get qemuPid(): number | undefined {
    return this.qemu?.pid;
  }

  /** SIGKILL QEMU (if any) and forget it; destroy() and failed boots/restores use this. */
  private async stopGuest(): Promise<void> {
    this.incomingReady = false;
    this.ports.detach();
    this.qmp?.close();
    await this.qemu?.kill();
    this.qmp = undefined;
    this.qemu = undefined;
  }

  private async prepare(): Promise<void> {
    this.env ??= await sessionGuestEnv(this.ctx.sessionDir, this.opts, (image) =>
      probeKvmBoot(this.spec(image, 'kvm', false), this.sock('probe-qmp.sock')),
    );
  }

  private spec(image: GuestImage, accel: Accelerator, incoming: boolean): QemuSpec {
    const [stepMs, tscKhz, disk, qmpSocket] = [this.ctx.stepMs, this.env?.tscKhz, this.diskPath, this.sock('qmp.sock')];
    const ports = this.ports.sockets((name) => this.sock(name));
    return qemuSpec(this.opts, { image, accel, stepMs, tscKhz, disk, qmpSocket, incoming, ...ports });
  }

  private async start(incoming: boolean, from?: string): Promise<void> {
    if (this.qemu !== undefined)
      throw new TargetError('microvm target already has a running guest: destroy() it first');
    const qemu = (this.qemu = spawnGuest(
      { ...this.spec(this.env!.image, this.env!.accel.accel, incoming), incomingFrom: from }, // from: a template's file
      this.effects,
      (hb) => this.hub.dispatch(hb),
      (step) => this.holds.acked(step),
    ));
    try {
      this.qmp = await QmpClient.connect(this.sock('qmp.sock'), {
        timeoutMs: 15_000,
        abortReason: () => qemu.exitReason(),
      });
      await raiseMigrationBandwidth(this.qmp);
      await setupRamCapture(this.opts.ramCapture, this.qmp);
      await this.ports.attach((name) => this.sock(name));
    } catch (err) {
      throw this.wrap('starting QEMU', err);
    }
  }

  private ramIo(socket = 'migrate-out.sock'): RamIo {
    const { qemu, qmp } = this.running();
    return ramIoOf(qemu.pid, qmp, this.sock(socket), this.opts);
  }

  private running(): { qemu: QemuProcess; qmp: QmpClient } {
    const { qemu, qmp } = this;
    if (qemu === undefined || qmp === undefined)
      throw new TargetError('microvm target has no guest: call boot() or restore() first');
    const gone = qemu.exitReason();
    if (gone !== undefined) throw new TargetError(`the guest's QEMU is gone (${qemu.diagnostics()})`);
    return { qemu, qmp };
  }

  private wrap(what: string, err: unknown): Error {
    return wrapTargetError(what, err, this.qemu?.diagnostics() ?? '');
  }
}
