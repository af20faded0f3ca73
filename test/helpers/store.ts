// Corrupting a stored chunk on purpose: flip bits of one byte where the store keeps it (negative controls of verify and gc).
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Store } from '../../harness/store/store.js';

/** XOR `mask` into the byte `at` bytes into chunk `h`'s stored bytes (its deflated block, if compressed) in its pack file. */
export function flipStoredByte(store: Store, h: string, at = 0, mask = 0x40): void {
  const loc = store.locate(h);
  if (!loc) throw new Error(`chunk ${h} is not in the store`);
  const fd = openSync(path.join(store.dir, 'packs', `${loc.pack}.pack`), 'r+');
  try {
    const b = Buffer.alloc(1);
    readSync(fd, b, 0, 1, loc.offset + at);
    b[0]! ^= mask;
    writeSync(fd, b, 0, 1, loc.offset + at);
  } finally {
    closeSync(fd);
  }
}
