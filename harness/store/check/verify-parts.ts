// Verify each part's whole-part SHA-256 (the manifest's `sha256`, hashed by the writer from the bytes it chunked) by
// rebuilding the part as a restore would: catches a page map, meta stream or chunk order that puts verified chunks
// together into the wrong bytes, which a chunk-by-chunk check cannot see.
import { createHash } from 'node:crypto';
import { IntegrityError } from '../../core/errors.js';
import type { Manifest } from '../manifest.js';
import { digestMismatch, partBytes } from '../read/part-reader.js';
import type { Store } from '../repository.js';

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
      const whole = createHash('sha256');
      for (const piece of partBytes(store.internals.packs, p)) whole.update(piece);
      const got = whole.digest('hex');
      if (got !== p.sha256) throw digestMismatch(`checkpoint ${m.seq} part "${p.name}"`, got, p.sha256);
      checked.add(p.sha256);
    } catch (err) {
      if (!(err instanceof IntegrityError)) throw err;
      problems.push({ part: p.name, problem: err.message });
    }
  }
  return problems;
}
