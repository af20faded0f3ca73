// `soak merge` keeps every event a cycle journals (real shards of a real soak): the merged journal holds, type by type,
// as many non-frame events as its sources together. A run with host-crash faults and external effects: merge once
// dropped 'fault' and 'effects' events, so a merged night's host crashes became plain SIGKILLs and its report said
// "Not measured: this run emitted no external effects" over a run that emitted hundreds. The merged report has gate 9
// and the effects section, with the shards' effects added, and gate 10 with the shards' guest-state events (issue 33). One shard merged alone: the report names the one missing.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEvent } from '../../harness/journal/events.js';
import { describeResult, soakIn, writeScenario } from '../helpers/cli.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-merge-events-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 180_000);

const FRAME = new Set(['run-start', 'run-resume', 'run-end']);

function events(dir: string): JournalEvent[] {
  return readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as JournalEvent);
}

/** How many events of each non-frame type `evs` holds. */
function byType(evs: readonly JournalEvent[]): Record<string, number> {
  const n: Record<string, number> = {};
  for (const e of evs) if (!FRAME.has(e.type)) n[e.type] = (n[e.type] ?? 0) + 1;
  return n;
}

describe('soak merge of real shards', () => {
  it('keeps every cycle event (faults and effects included), and the merged report judges the effects', async () => {
    const scenario = writeScenario(tmp, 'merge-events', [
      'target: process',
      'cycles: 6',
      'seed: 5',
      'stepMs: 5',
      'checkpoint: { everyMs: 100 }',
      'kill: { phases: { work: 1 }, workDelayMs: [150, 300] }',
      'faults:',
      '  - { kind: sigkill, weight: 1 }',
      '  - { kind: host-crash, weight: 1 }',
      'effects: { everySteps: 2 }',
      'promises: [workspace-unsynced]', // the guest-state probe runs: a guest-state event per resume (issue 33)
    ]);
    const runs = path.join(tmp, 'runs');
    for (const shard of ['0/2', '1/2']) {
      const r = await soak('run', '--scenario', scenario, '--shard', shard, '--out', runs, '--no-report');
      expect([0, 2], describeResult(r)).toContain(r.exitCode); // 2: three cycles are too few for the gates
    }
    const sources = readdirSync(runs)
      .filter((d) => d !== 'latest')
      .map((d) => path.join(runs, d));
    expect(sources).toHaveLength(2);
    const want: Record<string, number> = {};
    for (const s of sources) for (const [t, n] of Object.entries(byType(events(s)))) want[t] = (want[t] ?? 0) + n;
    expect(want['fault'], 'the seed plans a host crash in these 6 cycles').toBeGreaterThan(0);
    expect(want['effects'], 'each resume journals its effects').toBeGreaterThan(0);
    expect(want['guest-state'], "each resume journals the probe's examination").toBeGreaterThan(0);

    const merged = path.join(tmp, 'merged');
    const m = await soak('merge', ...sources, '--out', merged);
    expect(m.exitCode, describeResult(m)).toBe(0);
    expect(byType(events(merged))).toEqual(want);

    const rep = await soak('report', merged, '--out', path.join(tmp, 'reports'), '--json');
    expect([0, 2], describeResult(rep)).toContain(rep.exitCode);
    const dir = (JSON.parse(rep.stdout) as { dir: string }).dir;
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as {
      gates: { id: number }[];
      effects?: unknown;
      guestState?: { examined: number; unexamined: number; promised: string[] };
    };
    expect(summary.effects, 'the merged summary has the effects').toBeDefined();
    expect(summary.gates.map((g) => g.id)).toContain(9);
    const g = summary.guestState!;
    expect(g.promised).toEqual(['workspace-unsynced']);
    expect(g.examined + g.unexamined, "the shards' guest-state events, added").toBe(want['guest-state']);
    expect(summary.gates.map((x) => x.id)).toContain(10);
    expect(readFileSync(path.join(dir, 'summary.md'), 'utf8')).not.toContain('this run emitted no external effects');
    expect(summary).not.toHaveProperty('missingShards');

    // One shard of two merged alone: the report plans the whole soak and names the shard that never reported
    const half = path.join(tmp, 'half');
    const shard0 = sources.find((s) => s.endsWith('shard0of2'))!;
    expect((await soak('merge', shard0, '--out', half)).exitCode).toBe(0);
    const rep2 = await soak('report', half, '--out', path.join(tmp, 'reports-half'), '--json');
    const dir2 = (JSON.parse(rep2.stdout) as { dir: string }).dir;
    const s2 = JSON.parse(readFileSync(path.join(dir2, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(s2).toMatchObject({ plannedCycles: 6, missingShards: [{ index: 1, count: 2 }], cycles: { total: 3 } });
    expect(readFileSync(path.join(dir2, 'summary.md'), 'utf8')).toMatch(
      /Run incomplete: 3 of 6 planned cycles, merged from 1 runs .*; shard 2\/2 missing: no run of it was merged/,
    );
  });
});
