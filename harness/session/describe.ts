// Ask a session host what its target is, without booting it: the host owns the target, so even the facts for the
// run-start event (journaled before anything acts) come from a short-lived host in 'describe' mode.
import { AdapterError, HostTimeoutError, SessionHungError } from '../core/errors.js';
import type { TargetInfo } from '../targets/target.js';
import { HostHandle, isEv } from './host-handle.js';
import type { HostConfig } from './protocol.js';

/** Spawn a host in 'describe' mode, return the facts it reports and wait for it to exit. */
export async function describeTarget(
  cfg: Omit<HostConfig, 'mode'>,
  logFile: string,
  timeoutMs: number,
): Promise<TargetInfo> {
  const host = new HostHandle({ ...cfg, mode: 'describe' }, logFile);
  try {
    const { msg } = await host.waitFor(isEv('target'), timeoutMs, 'target description');
    return msg.info;
  } catch (err) {
    // a host that exited was read to the end: an adapter fault it died of is the error to report
    if (host.adapterFault !== null) throw new AdapterError(host.adapterFault, { cause: err });
    // no session runs yet: a target that does not describe itself in time is no stuck session (no cycle to fail)
    throw err instanceof SessionHungError ? new HostTimeoutError(err.message) : err;
  } finally {
    // It exits by itself once it has destroyed the target; a host that hangs or failed is killed with its group.
    if (host.exited === null) await Promise.race([host.done, new Promise((r) => setTimeout(r, 5000).unref())]);
    host.kill();
    await host.done;
  }
}
