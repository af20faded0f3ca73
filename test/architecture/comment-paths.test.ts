// Comments that name a file name one that exists: every `<folder>/<file>.ts`-shaped path in a comment of harness/,
// bench/ or test/ resolves (from the comment's folder or any folder above it, or from harness/; `dist/<x>.js` is
// `<x>.ts`), and every bare `<file>.ts` is some file's name. A moved or renamed file leaves its mentions to fix here.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';
import { comments, tsFiles } from '../helpers/source-scan.js';

/** Paths comments may name that are not files of this repository, each with why. */
const ALLOWED: Record<string, string> = {
  'gates/NN-name.yaml': 'the gate files’ naming pattern, not a file',
  'migration/savevm.c': 'QEMU’s source tree (the migration stream format)',
  'migration/ram.c': 'QEMU’s source tree (the migration stream format)',
  'vm-images/build/host-tsc.json': 'a cache the micro-VM target writes at run time (gitignored build folder)',
};

const SCANNED = ['harness', 'bench', 'test'];
const PATH = /(?<![\w./@-])((?:\.\.?\/)*(?:[\w.-]+\/)+[\w.-]+\.(?:ts|js|mjs|cjs|sh|md|c|h|ya?ml|json|py))\b/g;
const BARE = /(?<![\w./@-])([\w-]+\.ts)\b/g;

/** Where `named` (written in a comment of `file`) may be: from the file's folder up to `root`, and from harness/. */
function resolves(root: string, file: string, named: string): boolean {
  const candidates = [named];
  const dist = /^dist\/(.+)\.js$/.exec(named);
  if (dist) candidates.push(`${dist[1]!}.ts`);
  else if (named.endsWith('.js')) candidates.push(named.replace(/\.js$/, '.ts')); // a module by its import name
  const dirs = [path.join(root, 'harness')];
  for (let d = path.dirname(file); d.startsWith(root); d = path.dirname(d)) dirs.push(d);
  return dirs.some((d) => candidates.some((c) => existsSync(path.join(d, c))));
}

/** "top/file:line: path" for every path a comment names under `root`'s scanned folders that does not exist. */
export function stalePaths(root: string, tops: readonly string[] = SCANNED): string[] {
  const files = tops.flatMap((top) => tsFiles(path.join(root, top)).map((rel) => `${top}/${rel}`));
  const names = new Set(files.map((f) => path.basename(f)));
  const out: string[] = [];
  for (const rel of files) {
    const file = path.join(root, rel);
    for (const c of comments(file)) {
      for (const m of c.text.matchAll(PATH)) {
        const named = m[1]!;
        if (!(named in ALLOWED) && !resolves(root, file, named)) out.push(`${rel}:${c.line}: ${named}`);
      }
      for (const m of c.text.matchAll(BARE)) if (!names.has(m[1]!)) out.push(`${rel}:${c.line}: ${m[1]!}`);
    }
  }
  return out;
}

describe('paths named in comments', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-comment-paths-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('every one names a file that exists', () => {
    expect(stalePaths(repoRoot)).toEqual([]);
  });

  it('negative control: a moved file, a renamed one and a path off the tree are named; the rest resolve', () => {
    const write = (rel: string, text: string): void => {
      mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
      writeFileSync(path.join(tmp, rel), text);
    };
    write('harness/run/cycle.ts', '// one cycle; faults from nemesis/plan.ts\nexport const x = 1;\n');
    write(
      'harness/nemesis/plan.ts',
      '/** Planned per cycle (see run/cycle.ts, ../run/cycle.ts). */\nexport const y = 2;\n',
    );
    write(
      'test/run/cycle.test.ts',
      '// covers harness/run/cycle.ts and run/nemesis.ts (gone), bench in dist/bench/b.js\n/* old-name.ts */\nconst z = 3;\n',
    );
    write('bench/b.ts', '// see harness/nemesis/plan.ts, gates/NN-name.yaml and cycle.ts\nexport {};\n');
    expect(stalePaths(tmp)).toEqual([
      'test/run/cycle.test.ts:1: run/nemesis.ts',
      'test/run/cycle.test.ts:2: old-name.ts',
    ]);
  });
});
