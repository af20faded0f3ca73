// A part's whole-part SHA-256 computed on a worker thread while the reader hands the part out: each piece is copied
// into a ring of shared buffers (a memcpy, no fresh pages) that the worker hashes in order. Idle workers are kept
// for the next read and keep no process alive.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** Parts from this size are hashed on a digest thread (a smaller one is not worth the hand-over). */
export const DIGEST_THREAD_FROM = 8 << 20;
const SLOTS = 8;
const SLOT_BYTES = 1 << 20;

const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
let h = createHash('sha256');
parentPort.on('message', (m) => {
  if (m.end) {
    parentPort.postMessage({ digest: h.digest('hex') });
    h = createHash('sha256');
    return;
  }
  h.update(new Uint8Array(m.sab, 0, m.len));
  parentPort.postMessage({ slot: m.slot });
});
`;

interface Reply {
  slot?: number;
  digest?: string;
}

/** One worker and its ring of shared buffers; one digest at a time. */
class DigestWorker {
  private readonly worker = new Worker(SOURCE, { eval: true });
  private readonly ring = Array.from({ length: SLOTS }, () => new SharedArrayBuffer(SLOT_BYTES));
  private readonly free: number[] = [...Array(SLOTS).keys()];
  private waiters: Array<(r: Reply) => void> = [];
  private failure: Error | undefined;

  constructor() {
    this.worker.unref();
    this.worker.on('message', (r: Reply) => {
      if (r.slot !== undefined) this.free.push(r.slot);
      this.waiters.shift()?.(r);
    });
    this.worker.on('error', (err) => {
      this.failure = err instanceof Error ? err : new Error(String(err));
      for (const w of this.waiters.splice(0)) w({});
    });
  }

  /** The worker's next reply; the worker keeps the process alive only while someone waits for it. */
  private next(): Promise<Reply> {
    this.worker.ref();
    return new Promise<Reply>((resolve) => this.waiters.push(resolve)).finally(() => this.worker.unref());
  }

  /** Stop the worker (a read given up half-way: its hash state is of no use). */
  stop(): void {
    void this.worker.terminate();
  }

  /** Hash `piece` after everything before it (waits while every slot is in the worker's queue). */
  async update(piece: Uint8Array): Promise<void> {
    for (let off = 0; off < piece.length; off += SLOT_BYTES) {
      while (this.free.length === 0) {
        await this.next();
        if (this.failure !== undefined) throw this.failure;
      }
      const slot = this.free.pop()!;
      const part = piece.subarray(off, off + SLOT_BYTES);
      new Uint8Array(this.ring[slot]!).set(part);
      this.worker.postMessage({ slot, sab: this.ring[slot], len: part.length });
    }
  }

  /** The digest of everything hashed since the last one. */
  async digest(): Promise<string> {
    this.worker.postMessage({ end: true });
    for (;;) {
      const r = await this.next();
      if (this.failure !== undefined) throw this.failure;
      if (r.digest !== undefined) return r.digest;
    }
  }
}

const idle: DigestWorker[] = [];

/** A running SHA-256: on a digest thread for a part of `size` >= DIGEST_THREAD_FROM, else on this thread. */
export interface PartDigest {
  update(piece: Uint8Array): Promise<void> | void;
  digest(): Promise<string>;
  /** Give up before the digest (frees the thread). */
  abandon(): void;
}

/** A digest for a part of `size` bytes (a thread's worker returns to the idle list once its digest is read). */
export function partDigest(size: number): PartDigest {
  if (size < DIGEST_THREAD_FROM) {
    const h = createHash('sha256');
    return { update: (p) => void h.update(p), digest: () => Promise.resolve(h.digest('hex')), abandon: () => {} };
  }
  const w = idle.pop() ?? new DigestWorker();
  return {
    update: (p) => w.update(p),
    digest: async () => {
      const d = await w.digest();
      idle.push(w);
      return d;
    },
    abandon: () => w.stop(),
  };
}
