// Boot a guest in template mode and save it paused once its agent says READY (pre-session: tool up, no identity).
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../../core/errors.js';
import { createDisk } from '../guest/disk.js';
import { migrateToFile, raiseMigrationBandwidth } from './migrate.js';
import { QemuProcess, type QemuSpec } from './qemu.js';
import { QmpClient } from './qmp.js';
import type { GuestEnv } from './env.js';
import type { MicrovmOptions } from './options.js';
import { ensureTemplate, type TemplateSnapshot, templateKey } from './template.js';
import { verifyTemplate } from './template-check.js';

/** How the template guest is booted and saved. */
export interface TemplateSaveOptions {
  /** The session's QEMU spec (template: true); disk and qmpSocket are replaced with paths of this save. */
  spec: QemuSpec;
  diskMiB: number;
  diskFastCommit: boolean;
  /** Folder for the QMP and migration sockets (short paths). */
  socketDir: string;
  bootTimeoutMs: number;
  migrateTimeoutMs: number;
}

/** Save a template guest into `tmpDir` (ram.stream, disk.qcow2); resolves with the template's nonce and stream size. */
export async function saveTemplateGuest(
  o: TemplateSaveOptions,
  tmpDir: string,
): Promise<{ nonce: string; ramBytes: number; ram: string; disk?: string }> {
  const disk = o.spec.disk === undefined ? undefined : path.join(tmpDir, 'disk.qcow2');
  if (disk !== undefined) await createDisk(disk, o.diskMiB, o.diskFastCommit);
  let onReady: (nonce: string) => void = () => {};
  const ready = new Promise<string>((resolve) => (onReady = resolve));
  const spec: QemuSpec = {
    ...o.spec,
    template: true,
    incoming: false,
    disk,
    qmpSocket: path.join(o.socketDir, 'tpl-qmp.sock'),
  };
  const qemu = new QemuProcess(
    spec,
    () => {},
    undefined,
    (nonce) => onReady(nonce),
  );
  let qmp: QmpClient | undefined;
  try {
    qmp = await QmpClient.connect(spec.qmpSocket, { timeoutMs: 15_000, abortReason: () => qemu.exitReason() });
    await raiseMigrationBandwidth(qmp);
    const nonce = await Promise.race([
      ready,
      qemu.exited.then(() => {
        throw new TargetError(`template boot: QEMU is gone before the agent was ready (${qemu.diagnostics()})`);
      }),
      sleep(o.bootTimeoutMs, undefined, { ref: false }).then(() => {
        throw new TargetError(`template boot: no READY within ${o.bootTimeoutMs} ms (${qemu.diagnostics()})`);
      }),
    ]);
    // The agent now blocks reading the console; a moment for the kernel to go idle after the boot's last work.
    await sleep(200);
    await qmp.execute('stop'); // QEMU flushes the disk on stop: disk.qcow2 is consistent with the saved RAM
    const ram = path.join(tmpDir, 'ram.stream');
    const ramBytes = await migrateToFile(qmp, path.join(o.socketDir, 'tpl-mig.sock'), ram, o.migrateTimeoutMs);
    return { nonce, ramBytes, ram, ...(disk !== undefined ? { disk } : {}) };
  } finally {
    qmp?.close();
    await qemu.kill();
  }
}

/**
 * The template for this guest (built once per key, cached beside the image): what a template-mode boot restores.
 * `spec` is the session's QEMU spec; the build's sockets go beside `qmpSocket`.
 */
export async function guestTemplate(
  env: GuestEnv,
  spec: QemuSpec,
  opts: MicrovmOptions,
  qmpSocket: string,
): Promise<TemplateSnapshot> {
  const { diskMiB, diskFastCommit, bootTimeoutMs, migrateTimeoutMs } = opts;
  const o = { spec, diskMiB, diskFastCommit, socketDir: path.dirname(qmpSocket), bootTimeoutMs, migrateTimeoutMs };
  const key = templateKey({
    ...o,
    spec: { ...spec, template: true },
    imageHash: env.image.hash,
    qemuVersion: env.qemuVersion,
  });
  const template = await ensureTemplate(key, env.image.hash, (tmp) => saveTemplateGuest(o, tmp));
  await verifyTemplate(template); // hashed once per process (a standby: in its warm-up), then checked unchanged
  return template;
}
