// RAM-like test data for the store benches: 4 KiB pages, 60% compressible text (every page different), 30% random,
// 10% copies of 8 common pages, the page kinds drawn at random.
import { randomBytes } from 'node:crypto';

/** `bytes` (a multiple of 4096) of RAM-like pages. */
export function ramLike(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  const words = ['session', 'heartbeat', 'checkpoint', 'digest', 'agent', 'tool', 'step', 'restore', '\n', ' '];
  const common = Array.from({ length: 8 }, () => randomBytes(4096));
  const rnd = randomBytes(bytes / 4096);
  for (let p = 0; p < bytes / 4096; p++) {
    const at = p * 4096;
    const kind = rnd[p]! % 10;
    if (kind < 6) {
      let o = 0;
      let w = p;
      while (o < 4096) o += out.write(words[(w = (w * 7 + 3) % 10)]!, at + o, 4096 - o, 'latin1');
      out.writeUInt32LE(p, at); // every text page differs
    } else if (kind < 9) randomBytes(4096).copy(out, at);
    else common[p % 8]!.copy(out, at);
  }
  return out;
}
