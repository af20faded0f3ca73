// Verify each part's whole-part SHA-256 (the manifest's `sha256`, hashed by the writer from the bytes it chunked) by
// rebuilding the part as a restore would: catches a page map, meta stream or chunk order that puts verified chunks
// together into the wrong bytes, which a chunk-by-chunk check cannot see.
import { IntegrityError } from '../core/errors.js';
import type { Manifest } from './manifest.js';
import { checkedBytes, partBytes } from './part-reader.js';
import type { Store } from './repository.js';

/** A part whose rebuilt bytes do not match its digest, and the reader's message. */
export interface PartDigestProblem {
  part: string;
  problem: string;
}

/** Rebuild every part of `m` that records a digest and check it; `checked`: digests already matched (skipped). */
export function partDigestProblems(store: Store, m: Manifest, checked: Set<string>): PartDigestProblem[] {
  const problems: PartDigestProblem[] = [];
  for (const p of m.parts) {
    if (p.sha256 === undefined || checked.has(p.sha256)) continue;
    try {
      const pieces = checkedBytes(
        partBytes(store.internals.packs, p),
        p.sha256,
        `checkpoint ${m.seq} part "${p.name}"`,
      );
      while (pieces.next().done !== true); // read to the end: the digest is checked before the last piece
      checked.add(p.sha256);
    } catch (err) {
      if (!(err instanceof IntegrityError)) throw err;
      problems.push({ part: p.name, problem: err.message });
    }
  }
  return problems;
}
