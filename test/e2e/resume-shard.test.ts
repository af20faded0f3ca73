// Soak operations end to end: a runner SIGKILLed mid-soak and resumed again and again ends with exactly the planned
// cycles, none lost, none counted twice, and no process of the run left behind; shards merged equal their union.
// Each runner kill is timed from a cycle outcome seen in the journal, never from a sleep; a gate on measured time may
// fail on a loaded machine (checked with `soak gates --json`), no other gate may.
// Size: 5 runner kills, each right after a cycle of its own, take 5 cycles and a few more at most (a new runner starts
// between them); 24 planned cycles leave the final resume most of the soak. 4 shards of 12 give each shard 3 cycles.
// The two soaks share nothing, so they run at once, and so do the four shards (as a nightly runs them).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { parseJournal } from '../../harness/journal/writer.js';
import { hostGroups, orphanProcesses } from '../../harness/run/orphans.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { expectOnlyTimingFailures } from '../helpers/gates.js';
import { cliPath as cli } from '../helpers/paths.js';
import { soakIn } from '../helpers/cli.js';

let tmp: string;
/** The resumed soak's planned cycles. */
const CYCLES = 24;

const soak = soakIn(() => tmp, 600_000);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Room for a soak of tens of cycles on a 2-core machine shared with other work (cycles slow down 5-10x under load). */
const SOAK_TEST_MS = 900_000;
const journalOf = (dir: string): JournalEvent[] =>
  parseJournal(readFileSync(path.join(dir, 'journal.ndjson'), 'utf8'), dir).events;
/** Cycle outcomes journaled so far in `dir` (0 before its journal exists). */
const cyclesIn = (dir: string): number =>
  existsSync(path.join(dir, 'journal.ndjson')) ? journalOf(dir).filter((e) => e.type === 'cycle').length : 0;
/** The run folder `soak run --out runs` made (null before it exists). */
const runIn = (runs: string): string | null => {
  const d = existsSync(runs) ? readdirSync(runs).find((x) => x !== 'latest') : undefined;
  return d === undefined ? null : path.join(runs, d);
};

/** Poll (every 50 ms) until `seen()` holds; false if `child` exits first. */
async function until(seen: () => boolean, child: ResultPromise): Promise<boolean> {
  const state = { exited: false };
  void child.finally(() => (state.exited = true));
  while (!seen()) {
    if (state.exited) return false;
    await sleep(50);
  }
  return true;
}

/** Start `soak ...args`; SIGKILL it as soon as the run in `runDir()` has journaled more than `after` cycle outcomes. */
async function killAfterCycle(args: string[], runDir: () => string | null, after: number): Promise<void> {
  const runner = execaNode(cli, args, { cwd: tmp, reject: false, stdin: 'ignore', env: { CI: '1' }, timeout: 600_000 });
  const seen = await until(() => {
    const dir = runDir();
    return dir !== null && cyclesIn(dir) > after;
  }, runner);
  runner.kill('SIGKILL');
  const r = await runner;
  expect(seen, `the runner exited before a new cycle was journaled:\n${r.stdout}\n${r.stderr}`).toBe(true);
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ops-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.concurrent('soak run --resume after the runner itself is SIGKILLed; soak run --shard i/n + soak merge', () => {
  it(
    `5 runner kills during a ${CYCLES}-cycle soak: exactly ${CYCLES} cycles, each once, and no orphan processes`,
    async () => {
      const runs = path.join(tmp, 'runs-resume');
      await killAfterCycle(
        ['run', '--cycles', String(CYCLES), '--boot-samples', '0', '--seed', '5', '--out', runs, '--no-report'],
        () => runIn(runs),
        0,
      );
      const runDir = runIn(runs)!;
      for (let k = 1; k < 5; k++) {
        // Each resumed runner is killed right after it journals a cycle of its own.
        const done = cyclesIn(runDir);
        await killAfterCycle(['run', '--resume', runDir, '--no-report'], () => runDir, done);
      }
      const before = cyclesIn(runDir);
      expect(before).toBeGreaterThanOrEqual(5);
      expect(before).toBeLessThan(CYCLES);
      const last = await soak('run', '--resume', runDir, '--no-report');
      // Exit 1 is accepted only when timing gates alone failed (a loaded machine can push resume latency over its bar);
      // what this test is about, counts and violations, is asserted below from the journal itself.
      await expectOnlyTimingFailures(last.exitCode, runDir, `${last.stdout}\n${last.stderr}`);

      const events = journalOf(runDir);
      expect(events.filter((e) => e.type === 'run-resume')).toHaveLength(5);
      const outcomes = events.filter((e) => e.type === 'cycle').map((e) => (e as { cycle: number }).cycle);
      expect(outcomes).toHaveLength(CYCLES);
      expect(new Set(outcomes).size).toBe(CYCLES);
      expect([...outcomes].sort((a, b) => a - b)).toEqual(Array.from({ length: CYCLES }, (_, i) => i + 1));
      const { summary } = analyze(events);
      expect(summary.cycles).toEqual({ total: CYCLES, resumed: CYCLES, failed: 0, indeterminate: 0 });
      expect(summary.violations).toBe(0);
      // The last runner has exited; its hosts' groups may take a moment to be reaped: poll (bounded), then assert.
      const groups = hostGroups(events);
      for (let i = 0; i < 100 && orphanProcesses(groups, runDir).length > 0; i++) await sleep(50);
      expect(orphanProcesses(groups, runDir)).toEqual([]);
    },
    SOAK_TEST_MS,
  );

  it(
    'four shards merged give the same counts and Wilson interval as the union of their cycles',
    async () => {
      const runs = path.join(tmp, 'runs-shards');
      const shards = [0, 1, 2, 3];
      const results = await Promise.all(
        shards.map((i) =>
          soak(
            'run',
            '--cycles',
            '12',
            '--boot-samples',
            '0',
            '--seed',
            '9',
            '--shard',
            `${i}/4`,
            '--out',
            runs,
            '--no-report',
          ),
        ),
      );
      for (const i of shards) {
        const r = results[i]!;
        const dir = readdirSync(runs).find((d) => d.endsWith(`-shard${i}of4`));
        expect(dir, r.stderr).toBeDefined();
        await expectOnlyTimingFailures(r.exitCode, path.join(runs, dir!), `${r.stdout}\n${r.stderr}`);
      }
      // in shard order (the shards ran at once, so their folders' time prefixes are in no particular order)
      const names = readdirSync(runs).filter((d) => d.includes('-shard'));
      expect(names).toHaveLength(4);
      const shardDirs = shards.map((i) =>
        path.join(
          runs,
          names.find((d) => d.endsWith(`-shard${i}of4`))!,
        ),
      );
      // Disjoint cycle ids: shard i owns c with (c - 1) % 4 === i.
      shardDirs.forEach((dir, i) => {
        const ids = journalOf(dir)
          .filter((e) => e.type === 'cycle')
          .map((e) => (e as { cycle: number }).cycle);
        expect(ids).toEqual([i + 1, i + 5, i + 9]);
      });
      const merged = path.join(tmp, 'merged');
      const m = await soak('merge', ...shardDirs, '--out', merged);
      expect(m.exitCode, m.stderr).toBe(0);
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
    },
    SOAK_TEST_MS,
  );

  it('rejects a malformed --shard', async () => {
    const r = await soak('run', '--shard', '4/4', '--out', path.join(tmp, 'never'));
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/--shard: expected i\/n/);
  });
});
