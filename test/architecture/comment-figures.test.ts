// No measured figure in a harness comment (CONTRIBUTING: measurement history goes to CHANGELOG.md or bench/README.md,
// where it is dated; in code it goes stale unseen): approximate times ("~30 ms"), times "here" or "at load N",
// throughputs, "Nx faster", "N% less time", "measured ... N ms". The code keeps the reason, bench/README.md the number.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';
import { comments, tsFiles } from '../helpers/source-scan.js';

const FIGURES = [
  /(?:~|≈|\babout |\baround |\bsome )\d[\d.,]*(?:-\d[\d.,]*)?\s?(?:ms|µs|us|s|min|h)\b/i,
  /\b\d[\d.,]*(?:-\d[\d.,]*)?\s?(?:ms|µs|us|s)\b[^.;]*\b(?:here|on (?:this|these)|under load|at load)\b/i,
  /\b(?:at|under) load (?:average )?\d/i,
  /\b\d[\d.,]*\s?(?:[KMG]i?B|kB)\/s\b/,
  /\b\d[\d.,]*x (?:faster|slower|cheaper|smaller|larger|quicker)\b/i,
  /\b\d+% (?:less|more|faster|slower)\b/i,
  /\bmeasured\b[^.;]{0,40}\b\d[\d.,]*\s?(?:ms|µs|us|s)\b|\b\d[\d.,]*\s?(?:ms|µs|us|s) measured\b/i,
];

/** Figures a comment may state: facts of a format or a tool, not measurements (file: the figure). */
const ALLOWED = new Set(['targets/microvm/migrate.ts: 128 MiB/s']); // QEMU's default migration cap

/** The measured-looking figures in a comment's text (its lines joined). */
export function figuresIn(text: string): string[] {
  const joined = text.replace(/\n\s*(?:\*|\/\/)\s?/g, ' ');
  return FIGURES.flatMap((re) => re.exec(joined)?.[0] ?? []);
}

describe('figures in harness comments', () => {
  it('none: each lives in bench/README.md or CHANGELOG.md', () => {
    const harness = path.join(repoRoot, 'harness');
    const found = tsFiles(harness).flatMap((rel) =>
      comments(path.join(harness, rel)).flatMap((c) =>
        figuresIn(c.text)
          .map((f) => `${rel}: ${f}`)
          .filter((f) => !ALLOWED.has(f))
          .map((f) => `${f} (line ${c.line})`),
      ),
    );
    expect(found).toEqual([]);
  });

  it('negative control: the kinds of figure that used to sit in comments are found; reasons and formats are not', () => {
    const found = [
      '// these ~30 ms of synchronous work',
      "/** execa's import costs ~120-200 ms per host start */",
      '// (thread pool, OpenSSL: 60-130 ms here under load 12)',
      '// (~0.5 s at load 14, once per cold restore)',
      '/** compresses ~20x faster than deflate */',
      '// integers sort faster (about\n  // 40% less time here)',
      '/** Lift the cap of 90 MB/s */',
      '// 40 ms measured',
    ].map(figuresIn);
    expect(found.map((f) => f.length > 0)).toEqual(Array(8).fill(true));
    const clean = [
      '// written in ~1 MiB pieces, fsynced once',
      '/** A live page gets an update every 100 ms. */',
      '/** Average ~4 KiB, min 1 KiB, max 16 KiB */',
      '// a hung one is SIGKILLed after 30 s',
      "/** execa's import is slow (bench/README.md) */",
    ].flatMap(figuresIn);
    expect(clean).toEqual([]);
  });
});
