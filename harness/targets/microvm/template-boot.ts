// A fresh microvm session from a template snapshot: copy its disk, load its RAM stream into a new QEMU or a warm
// standby's QEMU waiting in `-incoming defer` (read by QEMU itself from the template's local file, as the bare floor
// does), hand the agent a new identity (boot nonce + entropy from the host, not the cloned guest's CRNG), cont. The
// test-only switch keeps the template's identity instead (negative control: the runner must catch it).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { TargetError } from '../../core/errors.js';
import { identityLine, KEEP_TEMPLATE_IDENTITY_LINE } from '../guest/console.js';
import { createDisk } from '../guest/disk.js';
import { migrateFromStream } from './migrate.js';
import type { QemuProcess } from './qemu.js';
import type { QmpClient } from './qmp.js';
import type { TemplateSnapshot } from './template.js';
import { assertTemplateUnchanged } from './template-check.js';

/** SOAK_TEST_TEMPLATE_SKIPS_IDENTITY=1 (TEST-ONLY negative control): template sessions keep the template's nonce. */
export const TEMPLATE_SKIPS_IDENTITY = 'SOAK_TEST_TEMPLATE_SKIPS_IDENTITY';

/** Whether the test-only switch is on. */
export function templateSkipsIdentity(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[TEMPLATE_SKIPS_IDENTITY] === '1';
}

/** What starting from a template needs of the target. */
export interface TemplateBootGuest {
  template: TemplateSnapshot;
  /** Where the session's disk goes (undefined: RAM-only guest). */
  diskPath: string | undefined;
  /** A standby's QEMU already waits in `-incoming defer` on the template's disk at diskPath (standbyDisk()). */
  waiting?: boolean;
  /**
   * Start a paused QEMU (template spec): loading at once from the migration URI `from`, or (no `from`) waiting in
   * `-incoming defer`. It opens diskPath, so the disk is copied first.
   */
  startIncoming(from?: string): Promise<{ qemu: QemuProcess; qmp: QmpClient }>;
  /** Let QEMU read the template's stream file itself (`exec:cat`); false: stream it over migrateSocket. */
  loadWithCat: boolean;
  migrateSocket: string;
  timeoutMs: number;
  /** Marks each phase's end (disk, qemu, ram, identity, cont). */
  mark?: (phase: string) => void;
}

/** A migration URI that has QEMU read `file` (POSIX-shell quoted: QEMU runs exec: URIs with /bin/sh -c). */
export function catUri(file: string): string {
  return `exec:cat '${file.replaceAll("'", `'\\''`)}'`;
}

/** Wait until QEMU's incoming migration of `what` completed (polled: QMP answers within ms while it loads). */
export async function incomingDone(
  qmp: QmpClient,
  qemu: QemuProcess,
  timeoutMs: number,
  what = "the template's RAM state",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await qmp.execute<{ status?: string; 'error-desc'?: string }>('query-migrate');
    if (info.status === 'completed') return;
    const gone = qemu.exitReason();
    if (info.status === 'failed' || gone !== undefined || Date.now() > deadline)
      throw new TargetError(
        `loading ${what}: ${info.status ?? 'not completed'}${info['error-desc'] ? `: ${info['error-desc']}` : ''} (${qemu.diagnostics()})`,
      );
    await sleep(2);
  }
}

/**
 * The disk a standby's waiting QEMU opens: the template's own, copied (a template boot then writes no disk; a restore
 * overwrites it in place, disk-handover.ts, as it does a blank one), or a blank image of the session's size.
 */
export async function standbyDisk(
  diskPath: string,
  template: TemplateSnapshot | undefined,
  o: { diskMiB: number; diskFastCommit: boolean },
): Promise<void> {
  if (template?.disk !== undefined) await copyFile(template.disk, diskPath);
  else await createDisk(diskPath, o.diskMiB, o.diskFastCommit);
}

/** Restore the template and give the guest its session identity; returns the nonce the session should report. */
export async function startFromTemplate(g: TemplateBootGuest): Promise<string> {
  const mark = g.mark ?? ((): void => {});
  mark('template'); // the template was found (or built)
  if (g.diskPath !== undefined && g.template.disk !== undefined && g.waiting !== true)
    await copyFile(g.template.disk, g.diskPath);
  mark('disk');
  const from = g.loadWithCat ? catUri(g.template.ram) : undefined;
  const { qemu, qmp } = await g.startIncoming(from);
  mark('qemu');
  if (from !== undefined && g.waiting === true) await qmp.execute('migrate-incoming', { uri: from });
  if (from !== undefined) await incomingDone(qmp, qemu, g.timeoutMs);
  else {
    const stream = createReadStream(g.template.ram, { highWaterMark: 1 << 20 });
    await migrateFromStream(qmp, g.migrateSocket, stream, g.timeoutMs);
  }
  mark('ram');
  const skip = templateSkipsIdentity();
  const nonce = skip ? g.template.nonce : randomBytes(8).toString('hex');
  // Written before `cont`: the line already waits in the emulated UART when the agent's read resumes.
  qemu.writeConsole(skip ? KEEP_TEMPLATE_IDENTITY_LINE : identityLine(nonce, randomBytes(32).toString('hex')));
  mark('identity');
  await assertTemplateUnchanged(g.template); // the guest runs only on the files checked against template.json
  await qmp.execute('cont');
  mark('cont');
  return nonce;
}
