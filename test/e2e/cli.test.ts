// End to end: the real `soak` CLI (dist/harness/cli.js) in a temp folder: a short run and its report, gates and store
// verification; the --skew-ms 40 negative control; and bad input (exit 3 or 1, a message naming the file/field/line,
// nothing written where the report would go); soak merge of journals bigger than its write pieces.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeSyntheticRun } from '../../bench/synthetic-journal.js';
import type { Summary } from '../../harness/analysis/summary.js';
import { readJournal } from '../../harness/journal/writer.js';
import { mergeJournals } from '../../harness/journal/merge.js';
import { Store } from '../../harness/store/store.js';
import { failedGates, gatesJson, isTimingGate } from '../helpers/gates.js';
import { exitCodeFor, type RunVerdict } from '../../harness/gates/verdict.js';
import { cliPath as cli, repoRoot as root } from '../helpers/paths.js';
import { chunkMap, flipStoredByte } from '../helpers/store.js';
import { describeResult, soakIn } from '../helpers/cli.js';

let tmp: string;

const soak = soakIn(() => tmp, 300_000);
const out = describeResult;
const lines = (text: unknown): string[] =>
  String(text)
    .split('\n')
    .filter((l) => l.length > 0);
/** A report's summary.json. */
const readSummary = (file: string): Summary => JSON.parse(readFileSync(file, 'utf8')) as Summary;
/** A regular expression matching `text` literally. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** "checkpoint <seq> part <part>: <problem>" lines of `soak store verify`, as [seq part, problem]. */
const verifyProblems = (stdout: unknown): Array<[string, string]> =>
  lines(stdout).flatMap((l): Array<[string, string]> => {
    const m = /^checkpoint (\d+) part (.+?): (.*)$/.exec(l);
    return m ? [[`${m[1]} ${m[2]}`, m[3]!]] : [];
  });
/** The folder the run made under `runsDir` (ignoring the `latest` link). */
const runFolder = (runsDir: string): string => {
  const dirs = readdirSync(runsDir).filter((d) => d !== 'latest');
  expect(dirs).toHaveLength(1);
  return path.join(runsDir, dirs[0]!);
};

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npx tsc -p . or npm test)`);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('soak run, report, gates, store (process target)', () => {
  let good: Result;
  let skew: Result;
  let runDir: string;
  let skewDir: string;
  let reportDir: string;
  let summary: Summary;

  beforeAll(async () => {
    [good, skew] = await Promise.all([
      soak('run', '--cycles', '8', '--boot-samples', '0', '--seed', '7', '--out', 'runs', '--report-dir', 'reports'),
      soak(
        'run',
        '--cycles',
        '4',
        '--boot-samples',
        '0',
        '--seed',
        '3',
        '--skew-ms',
        '40',
        '--out',
        'runs-skew',
        '--report-dir',
        'reports-skew',
      ),
    ]);
    runDir = runFolder(path.join(tmp, 'runs'));
    skewDir = runFolder(path.join(tmp, 'runs-skew'));
    const reports = readdirSync(path.join(tmp, 'reports')).filter((d) => d !== 'index.html');
    expect(reports).toHaveLength(1);
    reportDir = path.join(tmp, 'reports', reports[0]!);
    summary = readSummary(path.join(reportDir, 'summary.json'));
  }, 600_000); // two short soaks at once on a loaded 2-core machine

  it('exits 2 (insufficient data: 8 cycles are too few for gates 2, 6, 7, 8), printing the run folder, report path and verdict', async () => {
    // Judged on every gate but those on measured time, the verdict is exactly "insufficient" (exit 2). Timing gates are
    // left out of that judgement because a loaded machine can fail them, which is not what this test is about.
    const all = await gatesJson([runDir]);
    const untimed = path.join(tmp, 'gates-untimed');
    cpSync(path.join(root, 'gates'), untimed, { recursive: true });
    for (const g of all.gates.filter(isTimingGate))
      rmSync(path.join(untimed, `${String(g.id).padStart(2, '0')}-${g.name}.yaml`));
    const judged = await gatesJson([runDir], '--gates-dir', untimed);
    expect(judged.gates.map((g) => g.id)).toEqual([2, 5, 6, 7, 8]);
    expect(judged.exitCode, JSON.stringify(judged)).toBe(2);
    expect(judged.verdict).toBe('insufficient');
    // The run judges every gate: it says exactly the same (exit 2), unless a timing gate (and only a timing gate) failed.
    // On a machine the run's own samples call saturated, such a fail is inconclusive (saturated), exit 2 all the same.
    const failed = failedGates(all);
    const saturated = all.timing.saturated;
    expect(failed.other, out(good)).toEqual([]);
    expect(good.exitCode, out(good)).toBe(failed.timing.length === 0 || saturated ? 2 : 1);
    const printed = lines(good.stdout);
    expect(printed[0]).toBe(`run folder: ${runDir} (complete, 8 cycles run now, 8 in the run)`);
    expect(printed).toContain(`report: ${path.join(reportDir, 'index.html')}`);
    expect(printed.at(-1)).toMatch(
      failed.timing.length === 0
        ? /^verdict: INSUFFICIENT DATA \(/
        : saturated
          ? /^verdict: INCONCLUSIVE AT 95% \(.*; SATURATED machine: load p50 [\d.]+ on \d+ cores, CPU steal p50 [\d.]+%: #[\d, #]+ inconclusive \(saturated\)\)$/
          : new RegExp(`^verdict: FAIL \\(.*; failed: ${literal(failed.timing.join(', '))}\\)$`),
    );
    expect(printed.some((l) => l.startsWith('warning: Measured on a saturated machine'))).toBe(saturated);
    expect(String(good.stderr)).toContain('scenario default');
    expect(path.basename(reportDir)).toBe(`${summary.date}-default`);
  });

  it('summary.json has every field issue 2 lists: 8 cycles, all resumed, 0 violations', () => {
    expect(summary).toMatchObject({ schemaVersion: 1, scenario: 'default', target: 'process', seed: 7, violations: 0 });
    expect(summary.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(summary.cycles).toEqual({ total: 8, resumed: 8, failed: 0, indeterminate: 0 });
    expect(summary.killResume.successes).toBe(8);
    expect(summary.killResume.trials).toBe(8);
    expect(summary.killResume.wilson95?.[0]).toBeCloseTo(0.675592, 6); // 8 / (8 + z^2)
    expect(summary.killResume.wilson95?.[1]).toBe(1);
    const d = summary.downtimeMs as Record<'max' | 'mean' | 'min' | 'n' | 'p50' | 'p90' | 'p95' | 'p99', number>;
    expect(Object.keys(d).sort()).toEqual(['max', 'mean', 'min', 'n', 'p50', 'p90', 'p95', 'p99']);
    expect(d.n).toBe(8);
    expect(d.min).toBeGreaterThan(0);
    expect([
      d.min <= d.p50,
      d.p50 <= d.p90,
      d.p90 <= d.p95,
      d.p95 <= d.p99,
      d.p99 <= d.max,
      d.min <= d.mean,
      d.mean <= d.max,
    ]).toEqual(Array(7).fill(true));
    expect(summary.lostSteps.n).toBe(8);
    expect(summary.lostSteps.max).toBeGreaterThanOrEqual(summary.lostSteps.mean ?? Number.NaN);
    expect(summary.lostSteps.mean).toBeGreaterThanOrEqual(0);
    const dd = summary.dedup;
    expect(dd.checkpoints).toBeGreaterThanOrEqual(1);
    expect(dd.logicalBytes).toBeGreaterThan(dd.storedBytes);
    expect(dd.storedBytes).toBeGreaterThan(0);
    expect(dd.ratio).toBeCloseTo(dd.logicalBytes / dd.storedBytes, 9);
    expect(summary.environment).toMatchObject({
      node: process.version,
      cores: os.cpus().length,
      target: { kind: 'process' },
    });
    for (const k of ['os', 'arch', 'cpuModel', 'kernel', 'gitCommit', 'harnessVersion'] as const)
      expect(typeof summary.environment[k], k).toBe('string');
  });

  it('the report folder holds the four files; cycles.csv has one row per cycle', () => {
    for (const f of ['summary.json', 'summary.md', 'cycles.csv', 'index.html'])
      expect(existsSync(path.join(reportDir, f)), f).toBe(true);
    const csv = lines(readFileSync(path.join(reportDir, 'cycles.csv'), 'utf8'));
    expect(csv[0]!.startsWith('cycle,phase,observedPhase,outcome,downtimeMs')).toBe(true);
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 4)[0])).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(csv.slice(1).every((l) => l.split(',')[3] === 'ok')).toBe(true);
  });

  it('the journal is NDJSON with a schemaVersion on every event and 8 ok cycle outcomes', () => {
    const events = lines(readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')).map(
      (l) => JSON.parse(l) as Record<string, unknown>,
    );
    expect(events.every((e) => e.schemaVersion === 1 && typeof e.t === 'number')).toBe(true);
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'complete', cycles: 8 });
    expect(events.filter((e) => e.type === 'cycle').map((e) => e.outcome)).toEqual(Array(8).fill('ok'));
    expect(events.filter((e) => e.type === 'kill').length).toBeGreaterThanOrEqual(8);
  });

  it('`gates <run-dir> --json` parses and agrees with the run', async () => {
    const r = await soak('gates', runDir, '--json');
    expect(r.exitCode, out(r)).toBe(good.exitCode);
    const j = JSON.parse(String(r.stdout)) as { schemaVersion: number; runDirs: string[]; verdict: string };
    expect(j.schemaVersion).toBe(1);
    expect(j.runDirs).toEqual([runDir]);
    expect(exitCodeFor(j.verdict as RunVerdict)).toBe(good.exitCode);
    const all = await gatesJson([runDir]);
    expect(all.gates.length).toBeGreaterThanOrEqual(8);
    expect(failedGates(all).other).toEqual([]); // a timing gate alone may fail on a loaded machine
  });

  it('`store verify <run-dir>` exits 0; `store stats --json` shows dedup', async () => {
    const v = await soak('store', 'verify', runDir);
    expect(v.exitCode, out(v)).toBe(0);
    expect(lines(v.stdout).at(-1)).toMatch(/^\d+ checkpoints, \d+ chunk references checked: OK$/);
    const s = await soak('store', 'stats', runDir, '--json');
    expect(s.exitCode, out(s)).toBe(0);
    const stats = JSON.parse(String(s.stdout)) as { checkpoints: unknown[]; ratio: number };
    expect(stats.checkpoints.length).toBeGreaterThanOrEqual(summary.dedup.checkpoints);
    expect(stats.ratio).toBeGreaterThan(1);
  });

  it('this fresh journal analyses the same through the fast path and through JSON.parse on every line', async () => {
    const { loadRuns } = await import('../../harness/analysis/load-runs.js');
    expect(await loadRuns([runDir])).toEqual(await loadRuns([runDir], { fastPath: false }));
  });

  it('`soak report` re-derives the same summary from the journal alone', async () => {
    const r = await soak('report', runDir, '--out', 'reports-again');
    expect(r.exitCode, out(r)).toBe(good.exitCode); // the verdict's exit code, as `soak run` gives it
    const again = path.join(tmp, 'reports-again', path.basename(reportDir));
    // the report's verdict, and on a saturated machine the warning above it, as the run printed them
    const warned = lines(good.stdout).findIndex((l) => l.startsWith('warning: '));
    const verdict = warned < 0 ? [lines(good.stdout).at(-1)] : lines(good.stdout).slice(warned);
    expect(lines(r.stdout)).toEqual([`report: ${path.join(again, 'index.html')}`, ...verdict]);
    expect(readSummary(path.join(again, 'summary.json'))).toEqual(summary);
  });

  it('store verify names exactly the checkpoints and parts whose located chunk a flipped byte corrupts (exit 1)', async () => {
    const copy = path.join(tmp, 'store-copy');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const store = Store.open(copy);
    // The memory chunk whose stored bytes (its block) serve the fewest parts and chunk lists: usually one part of one
    // checkpoint, but deflate may pack it with others, and then every one of them must be named.
    const map = chunkMap(store);
    const users = (h: string): ReturnType<typeof map.usersOf> => map.usersOf(map.damagedWith(h));
    const reach = (h: string): number => users(h).parts.size + users(h).lists.size;
    const memory = store
      .list()
      .flatMap((m) => (m.parts.find((p) => p.name === 'memory')?.chunks ?? []).map((hash) => ({ seq: m.seq, hash })));
    expect(memory.length, 'the run stored no memory chunk').toBeGreaterThan(0);
    const found = memory.reduce((a, b) => (reach(b.hash) < reach(a.hash) ? b : a), memory[0]!);
    const { parts, lists } = users(found.hash);
    flipStoredByte(store, found.hash);
    store.close();
    const r = await soak('store', 'verify', copy);
    expect(r.exitCode, out(r)).toBe(1);
    const problems = verifyProblems(r.stdout);
    // A checkpoint whose chunk list the block breaks is named once for its list; every other user by its part.
    const want = [
      ...[...parts].filter((p) => !lists.has(Number(p.split(' ')[0]))),
      ...[...lists].map((seq) => `${seq} (chunk list)`),
    ].sort();
    expect([...new Set(problems.map(([w]) => w))].sort(), out(r)).toEqual(want);
    if (!lists.has(found.seq)) expect(want).toContain(`${found.seq} memory`);
    const corrupt = new RegExp(`: chunk [0-9a-f]{64} in pack [0-9a-f]+ at offset \\d+ is corrupt$`);
    for (const [, problem] of problems) expect(problem, out(r)).toMatch(corrupt);
    expect(problems.map(([, p]) => p.match(/chunk ([0-9a-f]{64})/)?.[1])).toContain(found.hash);
    expect(lines(r.stdout).at(-1)).toMatch(new RegExp(`: ${problems.length} problems$`));
  });

  it('store verify names every checkpoint sharing a chunk-list leaf whose stored bytes a flipped byte corrupts', async () => {
    const copy = path.join(tmp, 'store-copy-list');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const store = Store.open(copy);
    // The leaf shared by the most checkpoints' chunk lists, and who else its stored bytes (its block) serve.
    const map = chunkMap(store);
    const leaves = store.list().flatMap((m) => (m.listChunks ?? []).slice(m.chunkList?.length ?? 0));
    const users = (h: string): ReturnType<typeof map.usersOf> => map.usersOf(map.damagedWith(h));
    const leaf = leaves.reduce((a, b) => (users(b).lists.size > users(a).lists.size ? b : a), leaves[0]!);
    const { parts, lists } = users(leaf);
    flipStoredByte(store, leaf);
    store.close();
    expect(lists.size).toBeGreaterThanOrEqual(2);
    const r = await soak('store', 'verify', copy);
    expect(r.exitCode, out(r)).toBe(1);
    const problems = verifyProblems(r.stdout);
    // One line per checkpoint whose chunk list it breaks; parts of other checkpoints only where the block held their chunks.
    const want = [...lists].map((seq) => `${seq} (chunk list)`);
    const partsElsewhere = [...parts].filter((p) => !lists.has(Number(p.split(' ')[0])));
    expect(problems.filter(([w]) => w.endsWith(' (chunk list)')).map(([w]) => w)).toEqual(want);
    expect(problems.filter(([w]) => !w.endsWith(' (chunk list)')).every(([w]) => partsElsewhere.includes(w))).toBe(
      true,
    );
    for (const [where, problem] of problems.filter(([w]) => w.endsWith(' (chunk list)')))
      expect(problem).toMatch(
        new RegExp(
          `^checkpoint ${where.split(' ')[0]}'s chunk list cannot be read: store ${literal(copy)}: chunk [0-9a-f]{64} .* is corrupt$`,
        ),
      );
  });

  it('store gc --keep 3 on a copy keeps the newest 3, which verify; --keep 0 is bad input (exit 3)', async () => {
    const copy = path.join(tmp, 'store-gc');
    cpSync(path.join(runDir, 'store'), copy, { recursive: true });
    const before = JSON.parse(String((await soak('store', 'stats', copy, '--json')).stdout)) as {
      checkpoints: Array<{ seq: number }>;
    };
    const r = await soak('store', 'gc', copy, '--keep', '3', '--json');
    expect(r.exitCode, out(r)).toBe(0);
    const report = JSON.parse(String(r.stdout)) as {
      kept: number[];
      removed: number[];
      bytesAfter: number;
      bytesBefore: number;
    };
    expect(report.kept).toEqual(before.checkpoints.slice(-3).map((c) => c.seq));
    expect(report.removed).toHaveLength(before.checkpoints.length - 3);
    expect(report.bytesAfter).toBeLessThan(report.bytesBefore);
    const v = await soak('store', 'verify', copy);
    expect(v.exitCode, out(v)).toBe(0);
    expect(lines(v.stdout).at(-1)).toMatch(/^3 checkpoints, \d+ chunk references checked: OK$/);
    const bad = await soak('store', 'gc', copy, '--keep', '0');
    expect(bad.exitCode, out(bad)).toBe(3);
    expect(String(bad.stderr)).toMatch(/--keep must be a whole number >= 1/);
  });

  it('negative control: --skew-ms 40 makes violations > 0 and exits 1; `gates` exits 1', async () => {
    expect(skew.exitCode, out(skew)).toBe(1);
    expect(lines(skew.stdout).at(-1)).toMatch(/^verdict: FAIL \(/);
    expect(String(skew.stdout)).toMatch(/^violations: [1-9]\d*, e\.g\. /m);
    const reports = readdirSync(path.join(tmp, 'reports-skew')).filter((d) => d !== 'index.html');
    const s = readSummary(path.join(tmp, 'reports-skew', reports[0]!, 'summary.json'));
    expect(s.violations).toBeGreaterThan(0);
    expect(s.cycles.failed).toBeGreaterThan(0);
    expect(s.cycles.total).toBe(4);
    const g = await soak('gates', skewDir);
    expect(g.exitCode, out(g)).toBe(1);
    expect(lines(g.stdout).at(-1)).toMatch(/^verdict: FAIL \(/);
  });

  it('a torn last journal line is tolerated: gates gives the same verdict', async () => {
    const copy = path.join(tmp, 'torn-run');
    mkdirSync(copy);
    writeFileSync(
      path.join(copy, 'journal.ndjson'),
      `${readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')}{"schemaVersion":1,"t":9e9,"type":"cyc`,
    );
    const r = await soak('gates', copy, '--json');
    expect(r.exitCode, out(r)).toBe(good.exitCode);
  });

  it('a corrupt journal line in the middle: gates and report exit 1 naming the line; no report written', async () => {
    const copy = path.join(tmp, 'corrupt-run');
    mkdirSync(copy);
    const journal = lines(readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8'));
    journal[4] = '{"schemaVersion":1,"t":12.5,"type":"kill","cyc';
    writeFileSync(path.join(copy, 'journal.ndjson'), `${journal.join('\n')}\n`);
    const g = await soak('gates', copy);
    expect(g.exitCode, out(g)).toBe(1);
    expect(String(g.stderr)).toContain(`journal ${path.join(copy, 'journal.ndjson')} line 5 is corrupt`);
    expect(String(g.stdout)).toBe('');
    const r = await soak('report', copy, '--out', 'reports-corrupt');
    expect(r.exitCode, out(r)).toBe(1);
    expect(String(r.stderr)).toContain('line 5 is corrupt');
    expect(existsSync(path.join(tmp, 'reports-corrupt'))).toBe(false);
  });
});

// Each case has its own file and folders, so they run at once.
describe.concurrent('bad input: exit 3, a message naming the file/field, nothing written', () => {
  /** `soak run` with fresh --out and --report-dir; checks that neither was created. */
  async function badRun(name: string, ...args: string[]): Promise<Result> {
    const r = await soak('run', ...args, '--out', `runs-${name}`, '--report-dir', `reports-${name}`);
    expect(existsSync(path.join(tmp, `reports-${name}`)), `${name}: reports dir written\n${out(r)}`).toBe(false);
    return r;
  }

  it('a scenario file with invalid fields: every field named with the file, exit 3', async () => {
    const file = path.join(tmp, 'bad-fields.yaml');
    writeFileSync(file, 'name: bad\ncycles: -1\nkill:\n  workDelayMs: [5, 1]\nbogus: 1\n');
    const r = await badRun('fields', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    const err = String(r.stderr);
    expect(err).toContain(`soak: scenario ${file} is invalid:`);
    expect(err).toContain(`${file}: cycles: `);
    expect(err).toContain(`${file}: kill.workDelayMs: expected [min, max] with min <= max`);
    expect(err).toContain(`${file}: bogus: unknown field`);
    expect(existsSync(path.join(tmp, 'runs-fields'))).toBe(false);
  });

  it('a scenario file that is not YAML: names the file and the line, exit 3', async () => {
    const file = path.join(tmp, 'bad-yaml.yaml');
    writeFileSync(file, 'name: bad\ncycles: 3\nkill: { workDelayMs: [5, 9]\nseed: 2\n');
    const r = await badRun('yaml', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toMatch(
      new RegExp(
        `^soak: scenario ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} \\(line [345]\\) is not valid YAML: `,
      ),
    );
    expect(existsSync(path.join(tmp, 'runs-yaml'))).toBe(false);
  });

  it('--target nope: exit 3 naming the flag and the known targets', async () => {
    const r = await badRun('target', '--target', 'nope', '--cycles', '1');
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toContain('--target: unknown target "nope" (known targets: process');
    expect(existsSync(path.join(tmp, 'runs-target'))).toBe(false);
  });

  it('a scenario name that does not exist, and --cycles 0: exit 3', async () => {
    const a = await badRun('name', '--scenario', 'no-such-scenario');
    expect(a.exitCode, out(a)).toBe(3);
    expect(String(a.stderr)).toContain('no scenario named "no-such-scenario"');
    const b = await badRun('zero', '--cycles', '0');
    expect(b.exitCode, out(b)).toBe(3);
    expect(String(b.stderr)).toMatch(/default\.yaml is invalid:\n {2}--cycles \(overrides cycles\): /);
    expect(existsSync(path.join(tmp, 'runs-name')) || existsSync(path.join(tmp, 'runs-zero'))).toBe(false);
  });

  it('invalid targetOptions: exit 3 and no half-made run folder left behind', async () => {
    const file = path.join(tmp, 'bad-options.yaml');
    writeFileSync(file, 'name: badopts\ncycles: 1\ntargetOptions:\n  heapKiB: -1\n');
    const r = await badRun('opts', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toContain('targetOptions.heapKiB');
    const runs = path.join(tmp, 'runs-opts');
    expect(
      existsSync(runs) ? readdirSync(runs) : [],
      'a run folder (empty journal, scratch/, latest link) was left behind',
    ).toEqual([]);
  });

  it('invalid targetOptions: the message names the scenario file', async () => {
    const file = path.join(tmp, 'bad-options-2.yaml');
    writeFileSync(file, 'name: badopts\ncycles: 1\ntargetOptions:\n  heapKiB: -1\n');
    const r = await badRun('opts2', '--scenario', file);
    expect(r.exitCode, out(r)).toBe(3);
    // Like every other scenario error: "<file>: <dot-path>: <message>" (the progress line naming the file does not count).
    expect(String(r.stderr)).toContain(`${file}: targetOptions.heapKiB: `);
  });

  it('report and gates on a missing run folder: exit 3 naming it, no reports dir created', async () => {
    const r = await soak('report', '/no/such/dir', '--out', 'reports-missing');
    expect(r.exitCode, out(r)).toBe(3);
    expect(String(r.stderr)).toContain('run folder /no/such/dir does not exist');
    expect(existsSync(path.join(tmp, 'reports-missing'))).toBe(false);
    const g = await soak('gates', '/no/such/dir');
    expect(g.exitCode, out(g)).toBe(3);
    const empty = path.join(tmp, 'not-a-run');
    mkdirSync(empty);
    const n = await soak('gates', empty);
    expect(n.exitCode, out(n)).toBe(3);
    expect(String(n.stderr)).toContain(`run folder ${empty} has no journal.ndjson`);
  });

  it('store verify on a missing folder, and an unknown command: exit 3', async () => {
    const v = await soak('store', 'verify', '/no/such/dir');
    expect(v.exitCode, out(v)).toBe(3);
    expect(String(v.stderr)).toContain('/no/such/dir does not exist');
    const u = await soak('frobnicate');
    expect(u.exitCode, out(u)).toBe(3);
  });
});

describe('soak merge streams big journals', () => {
  it('merges two 3,000-cycle runs (7 MB, many write pieces) into exactly what the in-memory merge gives', async () => {
    const a = writeSyntheticRun(3000, 'soak-merge-a-');
    const b = writeSyntheticRun(3000, 'soak-merge-b-', 2); // a night of its own seed: one seed twice is refused
    try {
      expect(a.bytes + b.bytes).toBeGreaterThan(4 << 20); // more than 4 of the command's ~1 MiB write pieces
      const outDir = path.join(tmp, 'merged-big');
      const r = await soak('merge', a.dir, b.dir, '--out', outDir, '--json');
      expect(r.exitCode, out(r)).toBe(0);
      expect(JSON.parse(String(r.stdout))).toMatchObject({ sources: 2, cycles: 6000 });
      const want = mergeJournals(
        [a.dir, b.dir].map((d) => ({ events: readJournal(path.join(d, 'journal.ndjson')).events, source: d })),
        'merged-big',
      );
      const got = readJournal(path.join(outDir, 'journal.ndjson'));
      expect(got.tornTail).toBeNull();
      expect(got.events).toEqual(want);
      expect(readdirSync(tmp).filter((f) => f.includes('.merging-'))).toEqual([]);
    } finally {
      rmSync(a.dir, { recursive: true, force: true });
      rmSync(b.dir, { recursive: true, force: true });
    }
  });
});
