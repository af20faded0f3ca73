// Deterministic test bytes: sha256 in counter mode over a label (the same label gives the same bytes everywhere).
import { createHash } from 'node:crypto';

export function bytes(label: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let off = 0, i = 0; off < size; off += 32, i++)
    createHash('sha256').update(`${label}:${i}`).digest().copy(out, off);
  return out;
}

export const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
