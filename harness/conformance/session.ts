// The conformance kit's driver: real session hosts on one target, in one throwaway session folder, each step waiting
// on what the host reports (never on a sleep), and a kill that hits the host group and the target's kill list.
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Heartbeat } from '../check/heartbeat.js';
import { HostHandle, isEv, isFullHeartbeat } from '../session/host-handle.js';
import type { HostConfig } from '../session/protocol.js';
import { Store } from '../store/store.js';

/** What the battery needs of a target: its name, options and pacing (from a scenario or an adapter path). */
export interface ConformanceTarget {
  target: string;
  targetOptions: Record<string, unknown>;
  stepMs: number;
  checkpointEveryMs: number;
  timeoutMs: number;
}

/** One session folder (store, session dir, scratch) and the hosts started on it. */
export class ConformanceSession {
  private readonly hosts: HostHandle[] = [];

  constructor(
    readonly dir: string,
    private readonly t: ConformanceTarget,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /**
   * The newest complete checkpoint in the store now (null: none), as the soak's resume check reads it (run/latest.ts):
   * a checkpoint written whole but not yet acknowledged when its host was killed is complete, and a correct restore
   * brings it back (the last acknowledged one is not the bar: its commit may have been in flight).
   */
  newestComplete(): number | null {
    const store = Store.open(path.join(this.dir, 'store'), { purpose: 'conformance check' });
    try {
      return store.newest().manifest?.seq ?? null;
    } finally {
      store.close();
    }
  }

  /** Start a host booting a fresh session or restoring the newest checkpoint (`clone`: and never checkpointing). */
  start(mode: 'boot' | 'restore' | 'clone'): HostHandle {
    const host = new HostHandle({ ...this.config(), mode }, path.join(this.dir, 'hosts.log'));
    this.hosts.push(host);
    return host;
  }

  /**
   * Keep a copy of the session folder's probe record for a clone (the process target keeps it beside the session,
   * outside its checkpoint: targets/process/probe.ts); call before a restore replaces it.
   */
  keepProbeRecord(): void {
    const rec = path.join(this.dir, 'session', 'probe');
    if (existsSync(rec)) cpSync(rec, path.join(this.dir, 'clone', 'session', 'probe'), { recursive: true });
  }

  /** A second session restoring the newest checkpoint into a folder of its own (host mode `clone`: run/effects-clone.ts). */
  startClone(): HostHandle {
    const dir = path.join(this.dir, 'clone');
    const cfg = { ...this.config(), sessionDir: path.join(dir, 'session'), scratchDir: path.join(dir, 'scratch') };
    const host = new HostHandle({ ...cfg, mode: 'clone' }, path.join(this.dir, 'hosts.log'));
    this.hosts.push(host);
    return host;
  }

  /** A host's configuration on this session folder, but its mode. */
  config(): Omit<HostConfig, 'mode'> {
    return {
      target: this.t.target,
      targetOptions: this.t.targetOptions,
      storeDir: path.join(this.dir, 'store'),
      sessionDir: path.join(this.dir, 'session'),
      scratchDir: path.join(this.dir, 'scratch'),
      stepMs: this.t.stepMs,
      checkpointEveryMs: this.t.checkpointEveryMs,
      skewMs: 0,
      injectRestoreDelayMs: 0,
    };
  }

  /** The first full heartbeat of a host. */
  async firstFull(host: HostHandle): Promise<Heartbeat> {
    const { msg } = await host.waitFor(isFullHeartbeat, this.t.timeoutMs, 'full heartbeat');
    const { ev: _e, ...hb } = msg;
    return hb;
  }

  /** The next committed checkpoint of a host. */
  async nextCommit(host: HostHandle): Promise<{ seq: number; step: number }> {
    const { msg } = await host.waitFor(isEv('ckpt-commit'), this.t.timeoutMs, 'checkpoint commit');
    return { seq: msg.seq, step: msg.step };
  }

  /** SIGKILL a host's group and its kill list, wait for it to be gone; the highest step it reported. */
  async kill(host: HostHandle): Promise<number> {
    await host.reap(this.t.timeoutMs);
    return host.maxStep;
  }

  /** The adapter fault the first host that died of one relayed (its message), or null. */
  adapterFault(): string | null {
    return this.hosts.find((h) => h.adapterFault !== null)?.adapterFault ?? null;
  }

  /** Gracefully stop every host still running (destroy), then kill what is left. */
  async close(): Promise<void> {
    for (const h of this.hosts) if (h.exited === null) await h.stop(this.t.timeoutMs);
  }
}
