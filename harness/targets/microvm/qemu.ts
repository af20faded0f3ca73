// One QEMU microvm process: command line, spawn (same process group as the host), console I/O, exit tracking, kill.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { onExit } from 'signal-exit';
import { TargetError } from '../../core/errors.js';
import { ConsoleReader } from '../guest/console.js';
import type { Heartbeat } from '../../check/heartbeat.js';
import type { Accelerator } from '../guest/accel.js';

export interface QemuSpec {
  binary: string;
  accel: Accelerator;
  memoryMiB: number;
  kernel: string;
  initramfs: string;
  stepMs: number;
  /** TCG only: host TSC kHz for the guest kernel (tsc_early_khz=), skipping its own calibration. */
  tscKhz?: number;
  /** qcow2 workspace disk; undefined = RAM-only guest (workspace on tmpfs). */
  disk?: string;
  qmpSocket: string;
  /** Guest RAM in a shared memfd (ramCapture "memfd") instead of anonymous memory. */
  ramMemfd?: boolean;
  /**
   * Guest RAM mapped from this page-aligned RAM image, private (copy-on-write: the file is never written), for a restore
   * that loads only the device state (x-ignore-shared) and faults pages in as the guest touches them (bench/lazy-ram.ts).
   */
  ramFile?: string;
  /** Template mode (soak.template=1): the agent boots to a pre-session state and waits for its identity. */
  template?: boolean;
  /** The coding workload on (soak.work=): `coding` or TEST-ONLY `coding:<break iteration>` (spec.ts). */
  work?: string;
  /** The agent's dirty-rate knob (soak.dirty_kib=): KiB of RAM written per step. */
  dirtyKib?: number;
  /** Start paused, waiting for `migrate-incoming` (restore). */
  incoming: boolean;
  /** External effects on (issue 34): `<seed>:<everySteps>`, the agent's SOAK_EFFECTS (kernel command line, then init). */
  effects?: string;
  /** The guest-state probe on (soak.probe=1): its holder talks on the guest's ttyS1, this unix socket on the host. */
  probeSocket?: string;
  /** Wall-clock resync or RNG seed on (soak.clock=1): the guest's clock-sync reads the host's lines on ttyS2, this socket. */
  clockSocket?: string;
  /**
   * Start paused and load at once from this migration URI (e.g. `exec:cat FILE`) instead of waiting for
   * `migrate-incoming` (the bare floor bench: no capabilities to set first, which is what `defer` is for).
   */
  incomingFrom?: string;
  /** Upper bound on the process lifetime (then SIGKILL); the host's process group kill normally ends it first. */
  maxLifetimeMs: number;
}

/** The QEMU command line. Restore uses the same machine (RAM size, devices) as the saved guest, plus -incoming. */
export function qemuArgs(spec: QemuSpec): string[] {
  const append = [
    'console=ttyS0',
    'quiet',
    'loglevel=1',
    'edd=off',
    'panic=-1',
    'init_on_free=1', // freed pages are zero, so the migration stream skips them (96 -> 56 MB for a 256 MiB guest)
    ...(spec.accel === 'tcg' && spec.tscKhz !== undefined ? [`tsc_early_khz=${spec.tscKhz}`, 'tsc=reliable'] : []),
    `soak.step_ms=${Math.max(1, Math.round(spec.stepMs))}`,
    `soak.disk=${spec.disk === undefined ? 0 : 1}`,
    ...(spec.template === true ? ['soak.template=1'] : []),
    ...(spec.effects !== undefined ? [`soak.effects=${spec.effects}`] : []),
    ...(spec.probeSocket !== undefined ? ['soak.probe=1'] : []),
    ...(spec.clockSocket !== undefined ? ['soak.clock=1'] : []),
    ...(spec.work !== undefined ? [`soak.work=${spec.work}`] : []),
    ...(spec.dirtyKib !== undefined ? [`soak.dirty_kib=${spec.dirtyKib}`] : []),
  ].join(' ');
  const args = [
    '-M',
    spec.ramMemfd === true || spec.ramFile !== undefined ? 'microvm,memory-backend=mem0' : 'microvm',
    ...ramBackend(spec),
    '-accel',
    spec.accel,
    '-m',
    `${spec.memoryMiB}M`,
    '-smp',
    '1',
    '-nodefaults',
    '-no-user-config',
    '-display',
    'none',
    '-no-reboot',
    '-kernel',
    spec.kernel,
    '-initrd',
    spec.initramfs,
    '-append',
    append,
    '-chardev',
    'stdio,id=ser0,signal=off',
    '-serial',
    'chardev:ser0',
    '-qmp',
    `unix:${spec.qmpSocket},server=on,wait=off`,
  ];
  if (spec.probeSocket !== undefined) {
    // microvm makes one ISA serial port from -serial: the second (ttyS1: 0x2f8, IRQ 3) is added as a device.
    args.push('-chardev', `socket,id=ser1,path=${spec.probeSocket},server=on,wait=off`);
    args.push('-device', 'isa-serial,chardev=ser1,index=1');
  }
  if (spec.clockSocket !== undefined) {
    args.push('-chardev', `socket,id=ser2,path=${spec.clockSocket},server=on,wait=off`);
    args.push('-device', 'isa-serial,chardev=ser2,index=2'); // ttyS2: 0x3e8, IRQ 4
  }
  if (spec.disk !== undefined) {
    args.push('-drive', `id=disk0,file=${spec.disk},format=qcow2,if=none,cache=writeback`);
    args.push('-device', 'virtio-blk-device,drive=disk0');
  }
  if (spec.incomingFrom !== undefined) args.push('-S', '-incoming', spec.incomingFrom);
  else if (spec.incoming) args.push('-S', '-incoming', 'defer');
  return args;
}

/** The guest RAM's memory backend, when it is not QEMU's anonymous memory. */
function ramBackend(spec: QemuSpec): string[] {
  const size = `size=${spec.memoryMiB}M`;
  if (spec.ramFile !== undefined) {
    if (spec.ramFile.includes(',')) throw new TargetError(`RAM image path ${spec.ramFile}: a comma ends a QEMU option`);
    return ['-object', `memory-backend-file,id=mem0,${size},mem-path=${spec.ramFile},share=off`];
  }
  return spec.ramMemfd === true ? ['-object', `memory-backend-memfd,id=mem0,${size},share=on`] : [];
}

/**
 * QEMU as a child process. node:child_process rather than execa: execa's import is slow (bench/README.md), and a cold
 * host starts QEMU on the resume path (the process target does the same).
 */
function spawnQemu(spec: QemuSpec): ChildProcessWithoutNullStreams {
  return spawn(spec.binary, qemuArgs(spec), { stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A running QEMU: heartbeats parsed from the serial console, a way to write to it, and its exit. */
export class QemuProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly console: ConsoleReader;
  private stderrTail = '';
  private exitInfo: string | undefined;
  readonly exited: Promise<void>;

  constructor(
    spec: QemuSpec,
    onHeartbeat: (hb: Heartbeat) => void,
    onHold?: (step: number) => void,
    onReady?: (nonce: string) => void,
    onEffect?: (line: string) => string | undefined,
  ) {
    if (spec.qmpSocket.length > 100) {
      throw new TargetError(
        `QMP socket path ${spec.qmpSocket} is too long for a unix socket (max ~100 chars): use a shorter workDir`,
      );
    }
    this.console = new ConsoleReader(onHeartbeat, 20, onHold, onReady, onEffect);
    // Not detached: QEMU stays in the host's process group, so a SIGKILL of the group kills it with the host.
    for (const p of [
      spec.kernel,
      spec.initramfs,
      spec.disk ?? '',
      spec.qmpSocket,
      spec.probeSocket ?? '',
      spec.clockSocket ?? '',
    ]) {
      if (p.includes(','))
        throw new TargetError(`path ${p} contains a comma, which QEMU option syntax cannot carry: use another workDir`);
    }
    const child = (this.child = spawnQemu(spec));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.console.push(chunk));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-2000);
    });
    child.stdin.on('error', () => {}); // EPIPE after QEMU died: reported through `exited`
    let timedOut = false;
    const lifetime = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, spec.maxLifetimeMs);
    lifetime.unref();
    // A process that ends on its own, or on a signal it does not handle (SIGTERM to `soak image build --template`),
    // takes its QEMU along, as execa's `cleanup` did (signal-exit is what execa uses for it). A SIGKILL cannot be
    // caught: a host killed so takes QEMU along through its process group.
    const unhook = onExit(() => void child.kill('SIGKILL'));
    this.exited = new Promise<void>((resolve) => {
      const done = (info: string): void => {
        if (this.exitInfo !== undefined) return; // the first of 'error', 'close' and the fallback after 'exit'
        this.exitInfo = info;
        clearTimeout(lifetime);
        unhook();
        resolve();
      };
      const why = (code: number | null, signal: NodeJS.Signals | null): string =>
        timedOut
          ? 'killed: lifetime timeout'
          : signal !== null
            ? `killed by ${signal}`
            : `exited with code ${code ?? '?'}`;
      // A binary that cannot be started: 'error' without 'exit'.
      child.once('error', (err) => done(`could not be started (${err.message})`));
      // 'close' comes once its pipes are drained too (its last stderr lines are in the diagnostics); a pipe a child of
      // QEMU still holds open must not hide the exit for long.
      child.once('exit', (code, signal) => setTimeout(() => done(why(code, signal)), 1000).unref());
      child.once('close', (code, signal) => done(why(code, signal)));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Why QEMU is gone, or undefined while it runs. */
  exitReason(): string | undefined {
    return this.exitInfo;
  }

  /** Write bytes to the guest's serial console. */
  writeConsole(text: string): void {
    if (this.exitInfo === undefined && this.child.stdin.writable) this.child.stdin.write(text);
  }

  /** Context for error messages: QEMU's stderr and the console's last non-heartbeat lines. */
  diagnostics(): string {
    const noise = this.console.recentNoise();
    const parts: string[] = [];
    if (this.exitInfo !== undefined) parts.push(`QEMU ${this.exitInfo}`);
    if (this.stderrTail.trim() !== '') parts.push(`QEMU stderr: ${this.stderrTail.trim()}`);
    if (noise.length > 0) parts.push(`guest console: ${noise.slice(-5).join(' | ')}`);
    return parts.join('; ');
  }

  /** SIGKILL QEMU and wait for it to be gone. */
  async kill(): Promise<void> {
    if (this.exitInfo === undefined) this.child.kill('SIGKILL');
    await this.exited;
  }
}
