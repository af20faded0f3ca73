// End to end: `soak run --boot-samples 3` boots three throwaway sessions (real host processes) before its cycles, each
// journaled as a boot marked with its sample id; they leave the kill plan, the run's store and the downtime alone, and
// summary.json, summary.md and the gate count them in boot time's n.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../harness/journal/events.js';
import { planKill } from '../../harness/nemesis/plan.js';
import { loadScenario } from '../../harness/scenario/scenario.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { gatesJson } from '../helpers/gates.js';

let tmp: string;
let runDir: string;
let reportDir: string;
let events: JournalEvent[];
const soak = soakIn(() => tmp, 300_000);

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-boot-samples-'));
  const run = await soak(
    ...['run', '--cycles', '3', '--boot-samples', '3', '--seed', '11'],
    ...['--out', 'runs', '--report-dir', 'reports', '--json'],
  );
  expect([0, 1, 2], describeResult(run)).toContain(run.exitCode);
  ({ runDir, reportDir } = JSON.parse(run.stdout) as { runDir: string; reportDir: string });
  events = readFileSync(path.join(runDir, 'journal.ndjson'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as JournalEvent);
}, 310_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const boots = () => events.filter((e) => e.type === 'boot');

describe('soak run --boot-samples 3', () => {
  it('journals three boot samples, each from its own host, all before the first cycle and its session boot', () => {
    expect(boots().map((b) => b.sample)).toEqual([1, 2, 3, undefined]);
    const firstCycle = events.findIndex((e) => e.type === 'cycle-start');
    const sessionBoot = events.findIndex((e) => e.type === 'boot' && e.sample === undefined);
    const lastSample = events.findLastIndex((e) => e.type === 'boot' && e.sample !== undefined);
    expect(lastSample).toBeLessThan(sessionBoot);
    expect(sessionBoot).toBeLessThan(firstCycle);
    const hosts = events.filter((e) => e.type === 'host-start');
    expect(new Set(hosts.map((h) => h.pid)).size).toBe(hosts.length);
    // no checkpoint of a sample reached the journal: the first comes after the session's host started
    const sessionHost = events.findIndex((e) => e.type === 'host-start' && events.indexOf(e) > lastSample);
    expect(events.findIndex((e) => e.type === 'checkpoint')).toBeGreaterThan(sessionHost);
    expect(existsSync(path.join(runDir, 'scratch'))).toBe(false);
  });

  it('leaves the kill plan as it is without boot samples', () => {
    const { scenario } = loadScenario('default', { seed: 11, cycles: 3, bootSamples: 0 });
    const phases = events.filter((e) => e.type === 'cycle-start').map((e) => e.phase);
    expect(phases).toEqual([1, 2, 3].map((c) => planKill(scenario, c).phase));
    expect(events.filter((e) => e.type === 'cycle')).toHaveLength(3);
  });

  it('summary.json, summary.md and soak gates count them in boot time n = 4', async () => {
    const summary = JSON.parse(readFileSync(path.join(reportDir, 'summary.json'), 'utf8')) as {
      bootMs: { n: number };
      bootSamples: number;
      downtimeMs: { n: number };
    };
    expect([summary.bootMs.n, summary.bootSamples, summary.downtimeMs.n]).toEqual([4, 3, 3]);
    expect(readFileSync(path.join(reportDir, 'summary.md'), 'utf8')).toMatch(
      /Boot to the first full heartbeat, n = 4 \(3 boot samples, throwaway sessions booted before the cycles, and 1 session boot\)/,
    );
    const gate1 = (await gatesJson([runDir])).gates.find((g) => g.id === 1) as unknown as {
      n: number;
      verdict: string;
      saturated?: { measured: string };
    };
    expect(gate1.n).toBe(4);
    // 4 samples can never pass (too few); on a loaded machine boots can be slow enough to fail solidly (the whole 95%
    // interval past the bar), which is a timing verdict, not a count: anything but pass is right here (a solid fail
    // measured on a saturated machine is reported inconclusive (saturated))
    const allowed = gate1.saturated?.measured === 'fail' ? ['inconclusive'] : ['insufficient', 'fail'];
    expect(allowed, JSON.stringify(gate1)).toContain(gate1.verdict);
  });
});
