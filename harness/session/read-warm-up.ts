// A pool host's warm-up of the store's read path on bytes of its own, nothing of any session: the read pool's threads
// started and their code compiled, the slot buffers a read keeps for the next one touched, so that the first restore
// from the store does not pay for them (a fresh process's first read is its slowest: bench/README.md "resume-floor").
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Store } from '../store/store.js';

const WORDS = ['the', 'session', 'agent', 'checkpoint', 'restore', 'kernel', 'page', 'store', 'chunk', 'verified'];

/**
 * `bytes` of RAM-like pages, from a fixed seed: most are text (words from a short list, so LZ4 finds short and long
 * matches and literal runs alike, as in a guest's page cache and heaps), one in eight random (stored as is), one in
 * sixteen zero. The decoder's code paths are each warmed only on data that takes them.
 */
function pageLike(bytes: number): Buffer {
  const out = Buffer.alloc(bytes);
  let x = 0x9e3779b9;
  const next = (): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  for (let page = 0; page * 4096 < bytes; page++) {
    const at = page * 4096;
    const kind = page % 16;
    if (kind === 0) continue;
    if (kind % 8 === 1) {
      for (let i = at; i < at + 4096; i += 4) out.writeUInt32LE(next(), i);
      continue;
    }
    for (let i = at; i < at + 4096;) {
      const w = next();
      const word = w % 7 === 0 ? String(w % 100_000) : WORDS[w % WORDS.length]!;
      i += out.write(`${word} `, i, Math.min(word.length + 1, at + 4096 - i), 'latin1');
    }
  }
  return out;
}

/**
 * Write one checkpoint of `mib` MiB of page-like bytes (pageLike) into a scratch store, then twice: open the store
 * afresh, resolve its newest checkpoint (its location index, as a restore's first step does), read it as a stream (a
 * migration stream's restore) and write it into a sparse file at its offsets (a RAM image's restore into a memfd).
 */
export async function warmReadPath(scratchDir: string, mib = 16): Promise<void> {
  const dir = mkdtempSync(path.join(scratchDir, 'read-warm-up-'));
  try {
    const s = Store.open(dir, { purpose: 'read warm-up' });
    try {
      const w = s.begin(1);
      await w.put('ram', pageLike(mib << 20));
      w.commit();
    } finally {
      s.close();
    }
    for (let round = 0; round < 2; round++) {
      const r = Store.open(dir, { purpose: 'read warm-up' });
      try {
        const m = r.latest();
        if (m !== null) {
          for await (const _ of r.reader(m).stream('ram', { reuse: true }));
          const image = path.join(dir, 'image');
          const fd = openSync(image, 'w+');
          try {
            ftruncateSync(fd, mib << 20); // a file that holds no data, as a fresh QEMU's memfd
            await r.reader(m).writeInto('ram', fd);
          } finally {
            closeSync(fd);
            rmSync(image, { force: true });
          }
        }
      } finally {
        r.close();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
