// Clones (issue 34, item 3: "two sessions restored from one checkpoint both emit; count the duplicates this causes per
// discipline"): a real process-target soak whose every resume is cloned (effects.clones every: 1). Each clone is a
// second session host restoring the session's newest checkpoint while the session runs on; both emit, the clone is
// stopped, and an effects event with clone: true counts what it caused. Step-derived keys: no duplicate (the world
// recognised the clone's keys); random and absent keys: duplicates found (the negative controls). The session's own
// accountings lose nothing to the clone, no clone process outlives its stop, and the report shows the clones rows.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EffectsEvent } from '../../harness/journal/effects-event.js';
import { describeResult, soakIn } from '../helpers/cli.js';
import { journalSoFar } from '../helpers/live-soak.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-effects-clones-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const soak = soakIn(() => tmp, 300_000);
const CYCLES = 5;

/** Every process whose command line names `dir` (a clone host or its agent would). */
function processesUnder(dir: string): number[] {
  return readdirSync('/proc').flatMap((p) => {
    if (!/^\d+$/.test(p)) return [];
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(dir) ? [Number(p)] : [];
    } catch {
      return []; // gone meanwhile
    }
  });
}

describe('effects: clones on the process target', () => {
  it('counts the duplicates two sessions from one checkpoint cause, per discipline', async () => {
    const scenario = path.join(tmp, 'clones.yaml');
    writeFileSync(
      scenario,
      [
        'name: effects-clones',
        'target: process',
        `cycles: ${CYCLES}`,
        'bootSamples: 0',
        'seed: 3',
        'kill:',
        '  phases: { work: 1, checkpoint: 0, restore: 0 }',
        '  workDelayMs: [100, 300]',
        'effects: { everySteps: 2, clones: { every: 1, effectSteps: 4 } }',
        '',
      ].join('\n'),
    );
    const r = await soak('run', '--scenario', scenario, '--out', 'runs', '--report-dir', 'reports');
    expect([0, 2], describeResult(r)).toContain(r.exitCode); // timing gates may lack data: never a failure
    const [run] = readdirSync(path.join(tmp, 'runs')).filter((d) => d !== 'latest');
    const dir = path.join(tmp, 'runs', run!);
    const effects = journalSoFar(dir).filter((e): e is EffectsEvent => e.type === 'effects');
    const clones = effects.filter((e) => e.clone === true);
    const session = effects.filter((e) => e.clone !== true);
    expect(clones.map((e) => e.cycle)).toEqual(Array.from({ length: CYCLES }, (_, i) => i + 1));
    // each clone host journaled as every host is (what --resume's orphan sweep reads)
    const starts = journalSoFar(dir).filter((e) => e.type === 'host-start' && e.mode === 'clone');
    expect(starts).toHaveLength(CYCLES);
    const sum = (
      events: EffectsEvent[],
      d: 'step-key' | 'random-key' | 'no-key',
      k: 'first' | 'duplicates' | 'lost' | 'deduplicated',
    ) => events.reduce((n, e) => n + e.disciplines[d][k], 0);
    expect(sum(clones, 'step-key', 'first')).toBeGreaterThanOrEqual(CYCLES * 4);
    expect(sum(clones, 'step-key', 'duplicates')).toBe(0);
    expect(sum(clones, 'step-key', 'deduplicated')).toBeGreaterThan(0);
    // the negative controls: the clone's random-key and no-key effects were applied twice
    expect(sum(clones, 'random-key', 'duplicates')).toBeGreaterThan(0);
    expect(sum(clones, 'no-key', 'duplicates')).toBeGreaterThan(0);
    for (const d of ['step-key', 'random-key', 'no-key'] as const) expect(sum(session, d, 'lost'), d).toBe(0);
    // stopped cleanly: no clone host or agent left, its folder gone
    expect(processesUnder(path.join(dir, 'clones'))).toEqual([]);
    expect(existsSync(path.join(dir, 'clones', 'c1'))).toBe(false);
    const [report] = readdirSync(path.join(tmp, 'reports'));
    const summary = JSON.parse(readFileSync(path.join(tmp, 'reports', report!, 'summary.json'), 'utf8')) as {
      effects: { clones: { n: number } };
    };
    expect(summary.effects.clones.n).toBe(CYCLES);
    const md = readFileSync(path.join(tmp, 'reports', report!, 'summary.md'), 'utf8');
    expect(md).toMatch(/^\| clones: key from session \+ step \| \d+ \| 0 \(0%–/m);
    expect(md).toMatch(/^\| clones: no key \| \d+ \| [1-9]\d* \(/m);
  }, 300_000);
});
