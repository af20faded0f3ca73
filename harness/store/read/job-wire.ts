// A block job's result as it goes back from a read worker: blocks of their own (not in the job's shared buffer) are
// moved, not copied. Self-contained (no imports): the worker runs this function's own source.
import type { BlockResult } from './block-job.js';

/**
 * The buffers to move with result `r` (in the worker): each block of its own, copied first when it shares its
 * buffer with other bytes (a small inflate's may), so moving it takes nothing else along.
 */
export function transferList(r: BlockResult): ArrayBuffer[] {
  const moved: ArrayBuffer[] = [];
  for (let i = 0; i < r.own.length; i++) {
    let b = r.own[i]!;
    if (b.byteOffset !== 0 || b.byteLength !== b.buffer.byteLength) r.own[i] = b = new Uint8Array(b);
    moved.push(b.buffer as ArrayBuffer);
  }
  return moved;
}
