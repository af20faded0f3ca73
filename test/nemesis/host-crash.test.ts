// The host-crash fault (issue 31: a new fault kind as one file in nemesis/): the machine dies, so every process of the
// session is SIGKILLed at one instant, the host's group, its kill list and the warm standbys, and the restore comes
// from a cold host. A short real soak on the process target with `standby: true`, seed 6 (sigkill, sigkill,
// host-crash, host-crash, sigkill, host-crash: checked first): every host-crash cycle restores through a cold host
// (a host-start of mode restore in its cycle), resumes and passes the checker, while every sigkill cycle is handed to a
// warm standby (the contrast that lets the check fail); analysis counts host-crash as a kill-and-resume trial and the
// report gives it a durability row. Negative control: a crash that spares the standbys (test-only switch) hands its
// restore to a warm one, and the same check fails on every host-crash cycle.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, JournalEvent } from '../../harness/journal/events.js';
import { HOST_CRASH_SPARES_STANDBYS } from '../../harness/nemesis/host-crash.js';
import { planFault } from '../../harness/nemesis/plan.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { describeResult, soakRunJson, writeScenario } from '../helpers/cli.js';
import { expectOnlyTimingFailures } from '../helpers/gates.js';
import { cliPath } from '../helpers/paths.js';

if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-host-crash-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LINES = [
  'target: process',
  'cycles: 6',
  'seed: 6',
  'standby: true',
  'checkpoint: { everyMs: 100 }',
  'kill: { phases: { work: 2, checkpoint: 1 }, workDelayMs: [100, 300], checkpointDelayMs: [0, 3] }',
  'faults: [{ kind: host-crash }, { kind: sigkill }]',
];
const PLAN = ['sigkill', 'sigkill', 'host-crash', 'host-crash', 'sigkill', 'host-crash'];

/** Each cycle's fault, outcome, and whether a cold host restored it. */
function cycles(events: JournalEvent[]): { cycle: number; kind: string; cold: boolean; outcome: string }[] {
  const kinds = new Map(events.flatMap((e) => (e.type === 'fault' ? [[e.cycle, e.kind] as const] : [])));
  return events
    .filter((e): e is CycleEvent => e.type === 'cycle')
    .map((c) => ({
      cycle: c.cycle,
      kind: kinds.get(c.cycle) ?? 'sigkill',
      cold: events.some((e) => e.type === 'host-start' && e.mode === 'restore' && e.cycle === c.cycle),
      outcome: c.outcome,
    }));
}

/** What breaks the rule: a host-crash cycle restored by a warm standby, a sigkill cycle by a cold host. */
function breaches(events: JournalEvent[]): string[] {
  return cycles(events)
    .filter((c) => c.cold !== (c.kind === 'host-crash'))
    .map((c) => `cycle ${c.cycle} (${c.kind}) restored by ${c.cold ? 'a cold host' : 'a warm standby'}`);
}

interface RunJson {
  reportDir: string;
  summary: { standby?: boolean; killResume: { successes: number; trials: number } };
}

describe('host-crash fault', () => {
  it('plan of seed 6 (so the run below covers both kinds, a crash after a crash, and a kill after a crash)', () => {
    const s = parseScenario(['name: t', ...LINES].join('\n'), 't.yaml');
    expect([1, 2, 3, 4, 5, 6].map((c) => planFault(s, c))).toEqual(PLAN);
  });

  it.concurrent(
    'every host crash restores through a cold host and verifies; kills go to a standby',
    async () => {
      const file = writeScenario(tmp, 'host-crash', LINES);
      const out = path.join(tmp, 'host-crash');
      const { r, events, json } = await soakRunJson<RunJson>(file, out, 480_000);
      const said = describeResult(r);
      expect(
        cycles(events).map((c) => [c.kind, c.outcome]),
        said,
      ).toEqual(PLAN.map((k) => [k, 'ok']));
      expect(breaches(events), said).toEqual([]);
      // each host crash is journaled as its own fault, then the kill that delivered it
      for (const c of cycles(events).filter((x) => x.kind === 'host-crash')) {
        const inCycle = events.filter((e) => 'cycle' in e && e.cycle === c.cycle).map((e) => e.type);
        expect(inCycle.indexOf('fault'), said).toBeLessThan(inCycle.indexOf('kill'));
      }
      // counted like a SIGKILL: every cycle is a kill-and-resume trial; the report's breakdown has a host-crash row
      expect(json.summary.standby).toBe(true);
      expect(json.summary.killResume).toMatchObject({ successes: 6, trials: 6 });
      const summary = JSON.parse(readFileSync(path.join(json.reportDir, 'summary.json'), 'utf8')) as {
        durability?: { kind: string; trials: number; ok: number }[];
      };
      expect(summary.durability?.map((d) => [d.kind, d.trials, d.ok])).toEqual([
        ['host-crash', 3, 3],
        ['sigkill', 3, 3],
      ]);
      expect(readFileSync(path.join(json.reportDir, 'summary.md'), 'utf8')).toMatch(/Tested: host crash .*, n = 3\./);
      await expectOnlyTimingFailures(r.exitCode, path.join(out, 'latest'), said);
    },
    600_000,
  );

  it.concurrent(
    'negative control: a crash that spares the standbys restores warm, and the check fails',
    async () => {
      const file = writeScenario(tmp, 'host-crash-spares', LINES);
      const out = path.join(tmp, 'host-crash-spares');
      const { r, events } = await soakRunJson<RunJson>(file, out, 480_000, { [HOST_CRASH_SPARES_STANDBYS]: '1' });
      expect(cycles(events).length, describeResult(r)).toBe(6);
      expect(breaches(events)).toEqual([
        'cycle 3 (host-crash) restored by a warm standby',
        'cycle 4 (host-crash) restored by a warm standby',
        'cycle 6 (host-crash) restored by a warm standby',
      ]);
    },
    600_000,
  );
});
