// A warm standby's pre-read of the store's newest complete checkpoint: resolved before it says it is ready and again
// each time a manifest lands in the store's checkpoints/ folder while it waits (inotify through fs.watch), so at the
// hand-off only what was committed after the last pre-read is resolved (Store.newest(since): the same answer as a
// full read). The signal only saves time: a missed or late one leaves more to resolve at the hand-off, never less.
import { type FSWatcher, watch } from 'node:fs';
import type { Newest } from '../store/repository.js';
import { MANIFEST_FILE, storePaths } from '../store/paths.js';
import type { Store } from '../store/store.js';

/**
 * The standby's pre-read. `stale` (TEST-ONLY, session/standby.ts): no watching, the hand-off skips the re-read, and
 * start() waits until a newer manifest exists (so the kill, which waits for the standby, always finds it stale).
 */
export class NewestPreRead {
  private last: Newest | undefined;
  private watcher: FSWatcher | null = null;
  private queued = false;

  constructor(
    private readonly store: Store,
    private readonly stale = false,
  ) {}

  /** Resolve the newest complete checkpoint now, then again after each manifest committed, until the hand-off. */
  async start(): Promise<void> {
    this.read();
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
  }

  /** Stop watching (a standby handed a fresh session instead). */
  stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}
