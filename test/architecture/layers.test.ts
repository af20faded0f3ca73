// The house's rules, checked on the code's own imports: no import circle, the stages' arrows point down, core is a floor,
// and no file grows past the size where it should be split.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const harness = path.join(repoRoot, 'harness');
const MAX_LINES = 300;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    return d.isDirectory() ? sources(p) : d.name.endsWith('.ts') ? [p] : [];
  });
}

/** file (relative to harness/) -> the project files it imports (relative to harness/), static and dynamic. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1]!);
    const rel = (p: string): string => path.relative(harness, p).split(path.sep).join('/');
    graph.set(
      rel(file),
      specs.map((s) => rel(path.resolve(path.dirname(file), `${s}.ts`))),
    );
  }
  return graph;
}

/** Every circle of imports, as a list of files (empty when there is none). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') found.push([...stack.slice(stack.indexOf(g)), g]);
      else if (!state.has(g)) visit(g);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of graph.keys()) if (!state.has(f)) visit(f);
  return found;
}

/** Imports that break a rule "nothing under `from` imports anything under one of `banned`". */
export function breaches(
  graph: ReadonlyMap<string, readonly string[]>,
  from: string,
  banned: readonly string[],
): string[] {
  const out: string[] = [];
  for (const [file, deps] of graph) {
    if (!file.startsWith(`${from}/`)) continue;
    for (const d of deps) if (banned.some((b) => d === b || d.startsWith(`${b}/`))) out.push(`${file} -> ${d}`);
  }
  return out;
}

/**
 * The runner's chain, top to bottom: nothing in a layer imports a layer above it. The nemesis sits between the runner
 * and the session host: the runner asks it for each cycle's fault, and a fault acts on the runner's handle on a host
 * (session/), on the store's file system, and on the journal; it never calls back into the runner (what it needs of
 * the runner, the approach to the kill and a read of the store's newest, is lent to it in its FaultContext).
 */
export const RUNNER_CHAIN = ['cli.ts', 'commands', 'run', 'nemesis', 'session', 'targets', 'store'] as const;
/** The stages beside the chain that only a caller above it may use (the demo, the live pages, the conformance kit). */
const BESIDE = ['demo', 'live', 'watch', 'conformance'];

const graph = importGraph(sources(harness));
const folders = [...new Set([...graph.keys()].map((f) => f.split('/')[0]!).filter((f) => !f.endsWith('.ts')))];
const notCore = folders.filter((f) => f !== 'core');

describe('the house', () => {
  it('reads the imports (so an empty graph cannot pass the rules below)', () => {
    const edges = [...graph.values()].reduce((n, deps) => n + deps.length, 0);
    expect(graph.size).toBeGreaterThan(100);
    expect(edges).toBeGreaterThan(300);
  });

  it('has no import circle', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('analysis, gates and report never import a target, the runner, the nemesis or the session host', () => {
    for (const stage of ['analysis', 'gates', 'report'])
      expect(breaches(graph, stage, ['targets', 'run', 'nemesis', 'session']), stage).toEqual([]);
  });

  it(`the runner's chain points down: ${RUNNER_CHAIN.join(' -> ')}`, () => {
    for (const [i, layer] of RUNNER_CHAIN.entries()) {
      if (layer === 'cli.ts') continue;
      const above = [...RUNNER_CHAIN.slice(0, i), ...(i >= RUNNER_CHAIN.indexOf('run') ? BESIDE : [])];
      expect(breaches(graph, layer, above), layer).toEqual([]);
    }
  });

  it('the journal is read by analysis, never the other way: it imports no stage above the floors', () => {
    const above = folders.filter((f) => !['core', 'check', 'stats', 'scenario', 'journal'].includes(f));
    expect(above).toContain('analysis');
    expect(breaches(graph, 'journal', [...above, 'cli.ts'])).toEqual([]);
  });

  it('the floors import nothing above them: core nothing of the project, check/stats/scenario only core', () => {
    expect(breaches(graph, 'core', [...notCore, 'cli.ts'])).toEqual([]);
    const aboveFloors = folders.filter((f) => !['core', 'check', 'stats', 'scenario'].includes(f));
    for (const floor of ['check', 'stats'])
      expect(breaches(graph, floor, [...aboveFloors, 'scenario']), floor).toEqual([]);
    expect(breaches(graph, 'scenario', aboveFloors), 'scenario').toEqual([]);
  });

  it('targets and the store never import the stages above them', () => {
    const above = ['cli.ts', 'commands', 'run', 'session', 'analysis', 'gates', 'report'];
    expect(breaches(graph, 'targets', above)).toEqual([]);
    expect(breaches(graph, 'store', [...above, 'targets'])).toEqual([]);
  });

  it("the store's folders point down: check -> read -> index (the store's root files are their floor)", () => {
    expect(breaches(graph, 'store/index', ['store/read', 'store/check'])).toEqual([]);
    expect(breaches(graph, 'store/read', ['store/check'])).toEqual([]);
    const root = [...graph.keys()].filter((f) => /^store\/[^/]+\.ts$/.test(f));
    expect(
      root.flatMap((f) => (graph.get(f) ?? []).filter((d) => d.startsWith('store/check/')).map((d) => `${f} -> ${d}`)),
    ).toEqual([]);
  });

  it(`has no file over ${MAX_LINES} lines`, () => {
    const long = sources(harness)
      .map((f) => ({ f: path.relative(repoRoot, f), n: readFileSync(f, 'utf8').trimEnd().split('\n').length }))
      .filter(({ n }) => n > MAX_LINES);
    expect(long).toEqual([]);
  });
});

describe('the checks catch what they claim (negative controls)', () => {
  it('a circle is found', () => {
    const g = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
    ]);
    expect(circles(g)).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
  });

  it('an import running up the chain is found: a fault calling into the runner, the session into the nemesis', () => {
    const g = new Map([
      ['nemesis/freeze.ts', ['session/host-handle.ts', 'run/cycle-outcome.ts']],
      ['session/host-main.ts', ['nemesis/plan.ts']],
      ['run/cycle.ts', ['nemesis/faults.ts']],
    ]);
    const above = (layer: string): string[] => RUNNER_CHAIN.slice(0, RUNNER_CHAIN.indexOf(layer as 'run'));
    expect(breaches(g, 'nemesis', above('nemesis'))).toEqual(['nemesis/freeze.ts -> run/cycle-outcome.ts']);
    expect(breaches(g, 'session', above('session'))).toEqual(['session/host-main.ts -> nemesis/plan.ts']);
    expect(breaches(g, 'run', above('run'))).toEqual([]);
  });

  it('an import running up a floor is found, and a folder prefix is not mistaken for the folder', () => {
    const g = new Map([
      ['report/page.ts', ['run/runner.ts', 'runtime/x.ts']],
      ['core/clock.ts', ['core/errors.ts']],
    ]);
    expect(breaches(g, 'report', ['run'])).toEqual(['report/page.ts -> run/runner.ts']);
    expect(breaches(g, 'core', ['run'])).toEqual([]);
  });
});
