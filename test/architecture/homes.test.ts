// One home per rule (CONTRIBUTING "Where each kind of change lives"): every file the table names exists, and the rules
// that can be found by their shape have no second copy in harness/ or bench/ (comments aside). Each shape has a
// negative control: a planted copy is found.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

/** The paths the one-home table of CONTRIBUTING names (in backticks, with a folder and an extension). */
export function tableFiles(contributing: string): string[] {
  const at = contributing.indexOf('## Where each kind of change lives');
  const table = contributing
    .slice(at)
    .split('\n')
    .filter((l) => l.startsWith('| '));
  return [...new Set(table.flatMap((l) => [...l.matchAll(/`([\w.-]+(?:\/[\w.-]+)+\.\w+)`/g)].map((m) => m[1]!)))];
}

/** `text` without its comments (block comments, kept as their line breaks; `//` comments after a space or at a line's start). */
export function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, '')).replace(/(^|\s)\/\/.*$/gm, '$1');
}

/** A rule's shape: what a copy looks like, and the files allowed to hold it (its home, and each named exception). */
interface Shape {
  rule: string;
  pattern: RegExp;
  home: readonly string[];
  /** A copy the shape must find (the negative control). */
  planted: string;
}

export const SHAPES: readonly Shape[] = [
  {
    rule: 'a temp name built by hand (core/durable.ts tempPathFor, makeTempDir)',
    pattern: /\.tmp-|mkdtempSync\(`\$\{/,
    home: ['harness/core/durable.ts'],
    planted: 'const tmp = `${file}.tmp-${process.pid}`;',
  },
  {
    rule: 'a liveness probe by PID or a /proc stat parsed by hand (core/proc.ts)',
    pattern: /process\.kill\([^,()]+,\s*0\)|\/proc\/\$\{[^}]+\}\/stat\b|\) Z \//,
    home: ['harness/core/proc.ts', 'harness/core/machine-load.ts' /* CPU ticks, not identity */],
    planted: 'try { process.kill(pid, 0); return true; } catch { return false; }',
  },
  {
    rule: 'a SHA-256 trailer or check field written by hand (store/sealed-file.ts)',
    pattern: /\.digest\(\)\s*\.(?:copy|equals)\(|Buffer\.concat\(\[[^\]]*createHash|"check":"/,
    home: ['harness/store/sealed-file.ts'],
    planted: "return Buffer.concat([body, createHash('sha256').update(body).digest()]);",
  },
  {
    rule: 'a config error line built by hand (core/config-issues.ts)',
    pattern: /\.path\.join\(['"]\.['"]\)|\(top level\)/,
    home: ['harness/core/config-issues.ts'],
    planted: "problems.push(`${file}: ${issue.path.join('.')}: ${issue.message}`);",
  },
  {
    rule: 'a recorded number rounded by hand (core/round.ts)',
    pattern: /Math\.round\([^;]*\*\s*(?:10|100|1000|1e\d)\s*\)\s*\/\s*(?:10|100|1000|1e\d)\b/,
    home: [
      'harness/core/round.ts',
      'harness/analysis/machine-load.ts' /* the saturation figures: left to issue 32, which reworks that file */,
    ],
    planted: 'pauseMs: Math.round(result.pauseMs * 1000) / 1000,',
  },
  {
    rule: 'the shard rule (scenario/shard.ts)',
    pattern: /\(\s*\w+\s*-\s*1\s*\)\s*%|%\s*[\w.]*count\s*===|-\s*[\w.]*shard\.index\)\s*\/\s*[\w.]*count/,
    home: ['harness/scenario/shard.ts'],
    planted: 'for (let c = 1; c <= cycles; c++) if ((c - 1) % shard.count === shard.index) ids.push(c);',
  },
  {
    rule: 'the exit codes listed by hand (core/exit-codes.ts)',
    pattern: /Exit codes: 0 |\b0 pass, 1 /,
    home: ['harness/core/exit-codes.ts', 'harness/commands/help-text.ts' /* generated from yargs with the epilogue */],
    planted: "const EPILOG = 'Exit codes: 0 pass, 1 a gate failed';",
  },
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

/** `file:line` of each copy of `shape` in `files` (paths relative to the repository) outside its home. */
export function copies(shape: Shape, files: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [file, text] of files) {
    if (shape.home.includes(file)) continue;
    code(text)
      .split('\n')
      .forEach((line, i) => {
        if (shape.pattern.test(line)) out.push(`${file}:${i + 1}`);
      });
  }
  return out;
}

const files = new Map(
  ['harness', 'bench']
    .flatMap((d) => sources(path.join(repoRoot, d)))
    .map((f) => [path.relative(repoRoot, f).split(path.sep).join('/'), readFileSync(f, 'utf8')] as const),
);

describe("CONTRIBUTING's one-home table", () => {
  const named = tableFiles(readFileSync(path.join(repoRoot, 'CONTRIBUTING.md'), 'utf8'));

  it('names files, and every one of them exists', () => {
    expect(named.length).toBeGreaterThan(15);
    const missing = named.filter(
      (f) => !files.has(f) && !readdirSync(path.join(repoRoot, path.dirname(f))).includes(path.basename(f)),
    );
    expect(missing).toEqual([]);
  });

  it('a row naming a file that is not there is caught (negative control)', () => {
    const gone = tableFiles('## Where each kind of change lives\n\n| a rule | `harness/core/no-such-home.ts` |\n');
    expect(gone).toEqual(['harness/core/no-such-home.ts']);
    expect(files.has(gone[0]!)).toBe(false);
  });
});

describe('no second copy of a rule', () => {
  it('reads the sources (so an empty tree cannot pass)', () => {
    expect(files.size).toBeGreaterThan(300);
  });

  it.each(SHAPES.map((s) => [s.rule, s] as const))('%s', (_rule, shape) => {
    expect(copies(shape, files)).toEqual([]);
  });

  it.each(SHAPES.map((s) => [s.rule, s] as const))('a planted copy is found: %s', (_rule, shape) => {
    expect(copies(shape, new Map([['harness/x/planted.ts', `// a copy\n${shape.planted}\n`]]))).toEqual([
      'harness/x/planted.ts:2',
    ]);
    expect(copies(shape, new Map([['harness/x/comment.ts', `// ${shape.planted}\n`]]))).toEqual([]);
  });
});
