// The bare floor of a micro-VM resume (issue 16): a new QEMU with the target's own command line loading the RAM stream
// from a local file (`-incoming exec:cat FILE`, started with -S), `cont`, to the first verified full heartbeat. No
// session host, no store, no target code beyond the command line, the QMP client and the console parser.
import { rmSync } from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { FULL_HEARTBEAT_REQUEST } from '../harness/targets/guest/console.js';
import type { GuestEnv } from '../harness/targets/microvm/env.js';
import { QemuProcess } from '../harness/targets/microvm/qemu.js';
import { QmpClient } from '../harness/targets/microvm/qmp.js';
import { msSince } from './measure.js';

/** What one bare trial needs: the resolved guest environment and the machine shape the stream was saved from. */
export interface BareFloorSpec {
  env: GuestEnv;
  binary: string;
  memoryMiB: number;
  stepMs: number;
  /** The RAM + device-state stream, a plain file on local disk. */
  streamFile: string;
  /** A short folder for the QMP socket (and the guest's serial-port sockets). */
  dir: string;
  /**
   * The guest's serial ports beside its console, as the saved guest had them (GuestPorts.sockets: the RNG seed / clock
   * port is on by default): a stream saved with a port loads only into a QEMU that has it. Nothing talks on them here.
   */
  ports?: { probeSocket?: string; clockSocket?: string };
}

/** One bare trial's result: ms from spawning QEMU to the first full heartbeat, and that heartbeat. */
export interface BareFloorTrial {
  ms: number;
  /** Spawn -> QMP ready, -> stream loaded (query-migrate completed), -> first full heartbeat after `cont`. */
  phases: { qmpMs: number; loadMs: number; contToHbMs: number };
  hb: Heartbeat;
}

/** Spawn a QEMU that loads `streamFile`, resume it and wait for its first full heartbeat (killed before returning). */
export async function bareFloorTrial(spec: BareFloorSpec, timeoutMs = 60_000): Promise<BareFloorTrial> {
  if (/[^\w./-]/.test(spec.streamFile))
    throw new Error(`stream file ${spec.streamFile}: use a plain path (exec: runs sh)`);
  const qmpSocket = path.join(spec.dir, 'bare-qmp.sock');
  rmSync(qmpSocket, { force: true });
  let heard: (hb: Heartbeat) => void = () => {};
  const firstFull = new Promise<Heartbeat>((resolve) => (heard = resolve));
  const t0 = process.hrtime.bigint();
  const qemu = new QemuProcess(
    {
      binary: spec.binary,
      accel: spec.env.accel.accel,
      memoryMiB: spec.memoryMiB,
      kernel: spec.env.image.kernel,
      initramfs: spec.env.image.initramfs,
      stepMs: spec.stepMs,
      tscKhz: spec.env.tscKhz,
      qmpSocket,
      incoming: true,
      incomingFrom: `exec:cat ${spec.streamFile}`,
      ...spec.ports,
      maxLifetimeMs: timeoutMs * 2,
    },
    (hb) => {
      if (hb.full) heard(hb);
    },
  );
  let qmp: QmpClient | undefined;
  try {
    qmp = await QmpClient.connect(qmpSocket, { timeoutMs, abortReason: () => qemu.exitReason() });
    const qmpMs = msSince(t0);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const info = await qmp.execute<{ status?: string }>('query-migrate');
      if (info.status === 'completed') break;
      if (info.status === 'failed' || Date.now() > deadline)
        throw new Error(`bare floor: incoming migration ${info.status ?? 'not completed'} (${qemu.diagnostics()})`);
      await new Promise((r) => setTimeout(r, 2));
    }
    const loadMs = msSince(t0);
    qemu.writeConsole(FULL_HEARTBEAT_REQUEST); // before `cont`, as the target does: the guest serves it first
    await qmp.execute('cont');
    let timer: NodeJS.Timeout | undefined;
    const gone = new Promise<never>((_, reject) => {
      const check = (): void => {
        if (qemu.exitReason() !== undefined || Date.now() > deadline)
          reject(new Error(`bare floor: no full heartbeat (${qemu.diagnostics() || 'no output'})`));
        else timer = setTimeout(check, 50);
      };
      check();
    });
    const hb = await Promise.race([firstFull, gone]).finally(() => clearTimeout(timer));
    const ms = msSince(t0);
    return { ms, phases: { qmpMs, loadMs: loadMs - qmpMs, contToHbMs: ms - loadMs }, hb };
  } finally {
    qmp?.close();
    await qemu.kill();
    rmSync(qmpSocket, { force: true });
  }
}
