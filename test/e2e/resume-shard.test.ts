// Soak operations end to end: a runner SIGKILLed mid-soak and resumed again and again ends with exactly the planned
// cycles, none lost, none counted twice, and no process of the run left behind; shards merged equal their union.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execaNode, type Result } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/accumulator.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { parseJournal } from '../../harness/journal/writer.js';
import { hostGroups, orphanProcesses } from '../../harness/run/orphans.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { cliPath as cli, repoRoot as root } from '../helpers/paths.js';

let tmp: string;

const soak = (...args: string[]): Promise<Result> =>
  execaNode(cli, args, {
    cwd: tmp,
    reject: false,
    timeout: 180_000,
    stdin: 'ignore',
    env: { CI: '1' },
  }) as unknown as Promise<Result>;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const journalOf = (dir: string): JournalEvent[] =>
  parseJournal(readFileSync(path.join(dir, 'journal.ndjson'), 'utf8'), dir).events;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ops-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Gates on measured times (boot, checkpoint pause, resume latency): the ones machine load can fail. */
const TIMING_GATES = [1, 3, 4];

/** Gate numbers listed after "failed:" in a verdict line, e.g. "failed: #4 resume-latency". */
function failedGates(output: string): number[] {
  const m = /failed: ([^)]*)\)/.exec(output);
  return m ? [...m[1]!.matchAll(/#(\d+)/g)].map((x) => Number(x[1])) : [];
}

describe('soak run --resume after the runner itself is SIGKILLed', () => {
  it('5 runner kills during a 40-cycle soak: exactly 40 cycles, each once, and no orphan processes', async () => {
    const runs = path.join(tmp, 'runs-resume');
    const first = execaNode(cli, ['run', '--cycles', '40', '--seed', '5', '--out', runs, '--no-report'], {
      cwd: tmp,
      reject: false,
      stdin: 'ignore',
      env: { CI: '1' },
    });
    await sleep(4000);
    first.kill('SIGKILL');
    await first;
    const runDir = path.join(
      runs,
      readdirSync(runs).find((d) => d !== 'latest')!,
    );
    for (let k = 1; k < 5; k++) {
      const again = execaNode(cli, ['run', '--resume', runDir, '--no-report'], {
        cwd: tmp,
        reject: false,
        stdin: 'ignore',
        env: { CI: '1' },
      });
      await sleep(3000 + 500 * k);
      again.kill('SIGKILL');
      await again;
    }
    const before = journalOf(runDir).filter((e) => e.type === 'cycle').length;
    expect(before).toBeGreaterThan(0);
    expect(before).toBeLessThan(40);
    const last = await soak('run', '--resume', runDir, '--no-report');
    // Exit 1 is accepted only when timing gates alone failed (a loaded CI machine can push resume latency over its
    // bar); what this test is about, counts and violations, is asserted below from the journal itself.
    const said = `${String(last.stdout)}\n${String(last.stderr)}`;
    expect([0, 1, 2], said).toContain(last.exitCode);
    if (last.exitCode === 1) {
      const failed = failedGates(said);
      expect(failed.length > 0 && failed.every((g) => TIMING_GATES.includes(g)), said).toBe(true);
    }

    const events = journalOf(runDir);
    expect(events.filter((e) => e.type === 'run-resume')).toHaveLength(5);
    const outcomes = events.filter((e) => e.type === 'cycle').map((e) => (e as { cycle: number }).cycle);
    expect(outcomes).toHaveLength(40);
    expect(new Set(outcomes).size).toBe(40);
    expect([...outcomes].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    const { summary } = analyze(events);
    expect(summary.cycles).toEqual({ total: 40, resumed: 40, failed: 0, indeterminate: 0 });
    expect(summary.violations).toBe(0);
    await sleep(300);
    expect(orphanProcesses(hostGroups(events), runDir)).toEqual([]);
  });
});

describe('soak run --shard i/n + soak merge', () => {
  it('four shards merged give the same counts and Wilson interval as the union of their cycles', async () => {
    const runs = path.join(tmp, 'runs-shards');
    for (let i = 0; i < 4; i++) {
      const r = await soak('run', '--cycles', '12', '--seed', '9', '--shard', `${i}/4`, '--out', runs, '--no-report');
      expect([0, 2], String(r.stderr)).toContain(r.exitCode);
    }
    const shardDirs = readdirSync(runs)
      .filter((d) => d.includes('-shard'))
      .sort()
      .map((d) => path.join(runs, d));
    expect(shardDirs).toHaveLength(4);
    // Disjoint cycle ids: shard i owns c with (c - 1) % 4 === i.
    shardDirs.forEach((dir, i) => {
      const ids = journalOf(dir)
        .filter((e) => e.type === 'cycle')
        .map((e) => (e as { cycle: number }).cycle);
      expect(ids).toEqual([i + 1, i + 5, i + 9]);
    });
    const merged = path.join(tmp, 'merged');
    const m = await soak('merge', ...shardDirs, '--out', merged);
    expect(m.exitCode, String(m.stderr)).toBe(0);
    const one = (await loadRuns([merged])).analysis.summary;
    const union = (await loadRuns(shardDirs)).analysis.summary;
    expect(one.cycles).toEqual(union.cycles);
    expect(one.cycles.total).toBe(12);
    expect(one.killResume).toEqual(union.killResume);
    expect(one.downtimeMs).toEqual(union.downtimeMs);
    expect(one.dedup).toEqual(union.dedup);
    // merge refuses to overwrite
    const again = await soak('merge', ...shardDirs, '--out', merged);
    expect(again.exitCode).toBe(3);
  });

  it('rejects a malformed --shard', async () => {
    const r = await soak('run', '--shard', '4/4', '--out', path.join(tmp, 'never'));
    expect(r.exitCode).toBe(3);
    expect(String(r.stderr)).toMatch(/--shard: expected i\/n/);
  });
});
