// The suite's slow-first file order (test/helpers/slow-first.ts): every listed file exists, once, and listed files
// rank before unlisted ones in the listed order.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SLOW_FIRST, slowRank } from '../helpers/slow-first.js';
import { repoRoot } from '../helpers/paths.js';

describe('slow-first order', () => {
  it('lists only test files that exist, each once', () => {
    expect(SLOW_FIRST.filter((f) => !existsSync(path.join(repoRoot, f)))).toEqual([]);
    expect(new Set(SLOW_FIRST).size).toBe(SLOW_FIRST.length);
  });

  it('ranks listed files by their place and unlisted ones after them all', () => {
    const rank = (f: string): number => slowRank(repoRoot, path.join(repoRoot, f));
    expect(rank(SLOW_FIRST[0]!)).toBe(0);
    expect(rank(SLOW_FIRST[3]!)).toBe(3);
    expect(rank('test/stats/wilson.test.ts')).toBe(SLOW_FIRST.length);
  });
});
