// A fresh microvm session from a template snapshot: copy its disk, load its RAM stream into a QEMU waiting in
// `-incoming defer`, hand the agent a new identity (boot nonce + entropy from the host, not the cloned guest's CRNG),
// cont. The test-only switch keeps the template's identity instead (negative control: the runner must catch it).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { identityLine, KEEP_TEMPLATE_IDENTITY_LINE } from '../guest/console.js';
import { migrateFromStream } from './migrate.js';
import type { QemuProcess } from './qemu.js';
import type { QmpClient } from './qmp.js';
import type { TemplateSnapshot } from './template.js';

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
  /** Start a QEMU waiting in `-incoming defer` (template spec); it opens diskPath, so the disk is copied first. */
  startIncoming(): Promise<{ qemu: QemuProcess; qmp: QmpClient }>;
  migrateSocket: string;
  timeoutMs: number;
}

/** Restore the template and give the guest its session identity; returns the nonce the session should report. */
export async function startFromTemplate(g: TemplateBootGuest): Promise<string> {
  if (g.diskPath !== undefined && g.template.disk !== undefined) await copyFile(g.template.disk, g.diskPath);
  const { qemu, qmp } = await g.startIncoming();
  const stream = createReadStream(g.template.ram, { highWaterMark: 1 << 20 });
  await migrateFromStream(qmp, g.migrateSocket, stream, g.timeoutMs);
  const skip = templateSkipsIdentity();
  const nonce = skip ? g.template.nonce : randomBytes(8).toString('hex');
  // Written before `cont`: the line already waits in the emulated UART when the agent's read resumes.
  qemu.writeConsole(skip ? KEEP_TEMPLATE_IDENTITY_LINE : identityLine(nonce, randomBytes(32).toString('hex')));
  await qmp.execute('cont');
  return nonce;
}
