// Group commit for an append-only file: lines are written at once (in order, on the caller's thread), and fsynced in
// the background on libuv's thread pool, one fsync covering every line written before it, so a slow fsync never
// blocks the thread that aims kills.
import { closeSync, fsync, fsyncSync } from 'node:fs';
import { sleepSync } from '../core/clock.js';

/**
 * TEST-ONLY: SOAK_TEST_JOURNAL_FSYNC_DELAY_MS=N makes every journal fsync take N ms longer (the background one waits
 * after its fsync; the synchronous one at close blocks its thread), to show a slow fsync does not delay a kill.
 * Read here and nowhere else; nothing sets it in normal use.
 */
export const TEST_JOURNAL_FSYNC_DELAY_MS = 'SOAK_TEST_JOURNAL_FSYNC_DELAY_MS';

function testDelayMs(): number {
  const ms = Number(process.env[TEST_JOURNAL_FSYNC_DELAY_MS] ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/** Background fsyncs of one open file: `written()` after each write, `durable()` to wait, `close()` to finish. */
export class GroupCommit {
  /** Writes made so far, and how many of them the last finished fsync covers. */
  private writes = 0;
  private synced = 0;
  private inFlight = false;
  private closed = false;
  private failure: Error | null = null;
  private waiters: Array<{ upTo: number; resolve: () => void; reject: (err: Error) => void }> = [];

  constructor(private readonly fd: number) {}

  /** Before a write: throws once closed, or the error of a background fsync that failed (a full or failing disk). */
  check(): void {
    if (this.closed) throw new Error('journal written after it was closed');
    if (this.failure) throw this.failure;
  }

  /** A line was written: make sure an fsync that covers it is started (one at a time; the next covers all since). */
  written(): void {
    this.writes++;
    this.kick();
  }

  /** Resolves once every write made before this call is fsynced (rejects with the fsync's error, if one failed). */
  durable(): Promise<void> {
    const upTo = this.writes;
    if (this.failure) return Promise.reject(this.failure);
    if (this.synced >= upTo) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ upTo, resolve, reject }));
  }

  /** fsync on this thread (everything written so far is durable on return), then close the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.synced < this.writes) {
      fsyncSync(this.fd);
      const delay = testDelayMs();
      if (delay > 0) sleepSync(delay);
      this.synced = this.writes;
    }
    this.settle();
    // a background fsync still running owns the fd until it calls back; it closes it then
    if (!this.inFlight) closeSync(this.fd);
  }

  private kick(): void {
    if (this.inFlight || this.closed || this.synced >= this.writes) return;
    this.inFlight = true;
    const upTo = this.writes;
    fsync(this.fd, (err) => {
      const done = (): void => {
        this.inFlight = false;
        if (this.closed) {
          closeSync(this.fd);
          return;
        }
        if (err) this.failure = err;
        else this.synced = Math.max(this.synced, upTo);
        this.settle();
        this.kick();
      };
      const delay = testDelayMs();
      if (delay > 0) setTimeout(done, delay);
      else done();
    });
  }

  private settle(): void {
    const left: typeof this.waiters = [];
    for (const w of this.waiters) {
      if (this.failure) w.reject(this.failure);
      else if (this.synced >= w.upTo) w.resolve();
      else left.push(w);
    }
    this.waiters = left;
  }
}
