// A warm standby's pre-read of the store's newest complete checkpoint: resolved before it says it is ready and again
// each time a manifest lands in the store's checkpoints/ folder while it waits (inotify through fs.watch), so at the
// hand-off only what was committed after the last pre-read is resolved (Store.newest(since): the same answer as a
// full read). The signal only saves time: a missed or late one leaves more to resolve at the hand-off, never less.
// With a warm copy (store/read/warm-chunks.ts), each newest checkpoint's chunks are also fetched, checked, into this
// process's memory (only those the last one lacked), so the restore reads from the store only what came after.
import { type FSWatcher, watch } from 'node:fs';
import type { Newest } from '../store/repository.js';
import { MANIFEST_FILE, storePaths } from '../store/paths.js';
import type { Store } from '../store/store.js';
import type { WarmChunks } from '../store/read/warm-chunks.js';

/** SOAK_STANDBY_WARM=0: a standby keeps no warm copy of the newest checkpoint (its restore reads all from the store). */
export const STANDBY_WARM_ENV = 'SOAK_STANDBY_WARM';

/** Whether a standby keeps a warm copy (default yes). */
export function standbyWarms(env: NodeJS.ProcessEnv = process.env): boolean {
  return env[STANDBY_WARM_ENV] !== '0';
}

/**
 * The standby's pre-read. `stale` (TEST-ONLY, session/standby.ts): no watching, the hand-off skips the re-read, and
 * start() waits until a newer manifest exists (so the kill, which waits for the standby, always finds it stale).
 */
export class NewestPreRead {
  private last: Newest | undefined;
  private watcher: FSWatcher | null = null;
  private queued = false;
  /** The warm-ups, one after the other; the seq the warm copy holds. */
  private warming: Promise<void> = Promise.resolve();
  private warmSeq = 0;
  private handedOff = false;

  constructor(
    private readonly store: Store,
    private readonly stale = false,
    private readonly warm?: WarmChunks,
    private readonly log: (line: string) => void = () => {},
  ) {}

  /**
   * Resolve the newest complete checkpoint now (and warm its copy), then again after each manifest committed, until
   * the hand-off.
   */
  async start(): Promise<void> {
    this.read();
    await this.warming;
    // checkpoints committed while it warmed: warmed too (a few new chunks each) before this standby says it is ready
    for (let i = 0; i < 3 && this.warm !== undefined && this.store.lastSeq() > this.warmSeq; i++) {
      this.read();
      await this.warming;
    }
    if (this.stale) {
      const seq = this.last?.manifest?.seq ?? 0;
      while (this.store.lastSeq() <= seq) await new Promise((r) => setTimeout(r, 20));
      return;
    }
    try {
      this.watcher = watch(storePaths(this.store.dir).checkpoints, (_event, name) => {
        if (typeof name === 'string' && MANIFEST_FILE.test(name)) this.queue();
      });
      this.watcher.on('error', () => this.stop()); // no signal: the hand-off resolves what came since
    } catch {
      // no inotify here: the hand-off resolves everything committed after start()
    }
  }

  /** At the hand-off: stop watching; the newest complete checkpoint now (and every newer manifest passed over). */
  take(): Newest {
    this.stop();
    if (this.stale && this.last) return this.last;
    this.read();
    return this.last!;
  }

  /** One pre-read for a burst of manifest events, after the current callback (the rename is complete by then). */
  private queue(): void {
    if (this.queued) return;
    this.queued = true;
    setImmediate(() => {
      this.queued = false;
      if (this.watcher !== null) this.read();
    });
  }

  private read(): void {
    this.store.refresh();
    this.last = this.store.newest(this.last);
    if (this.warm !== undefined) this.warming = this.warming.then(() => this.warmUp());
  }

  /** Warm the copy to the newest resolved checkpoint (none after the hand-off); a failure leaves it to the restore. */
  private async warmUp(): Promise<void> {
    const m = this.last?.manifest;
    if (this.warm === undefined || m == null || m.seq === this.warmSeq || this.handedOff) return;
    const t0 = performance.now();
    try {
      const c = await this.store.warm(m, this.warm);
      const whole = await this.warm.assemble(this.store.reader(m, this.warm));
      this.warmSeq = m.seq;
      const ms = Math.round(performance.now() - t0);
      this.log(
        `warm copy of checkpoint ${m.seq}: fetched ${c.fetched}, held ${c.held} chunks (${c.bytes} bytes), ${whole} bytes whole, ${ms} ms`,
      );
    } catch (err) {
      // the restore reads the store itself and meets the same fault there, where it is judged
      this.log(`warm copy of checkpoint ${m.seq} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Stop watching (a standby handed a fresh session instead, or at the hand-off): no warm-up starts after this. */
  stop(): void {
    this.handedOff = true;
    this.watcher?.close();
    this.watcher = null;
  }
}
