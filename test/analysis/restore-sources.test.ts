// Where restores read their checkpoint (restore events' optional `source`) is counted into summary.restoreSources,
// the same through analyze(), the journal's fast path and a journal split over threads; absent when no event says.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyze } from '../../harness/analysis/analyze.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import type { JournalEvent } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { journalEvent, testEnvironment } from '../helpers/journal-events.js';

const scenario = parseScenario('name: hot\ncycles: 4\nseed: 1\ntarget: microvm\n', 'hot.yaml');
const restore = (cycle: number, source?: string): JournalEvent =>
  journalEvent({
    type: 'restore',
    cycle,
    seq: cycle,
    step: cycle * 10,
    restoreMs: 100 + cycle,
    ...(source === undefined ? {} : { source }),
  });
const start = journalEvent({
  type: 'run-start',
  runId: 'r',
  startedAt: '2026-12-02T00:00:00.000Z',
  scenario,
  environment: { ...testEnvironment, target: { kind: 'microvm' } },
});
const sources = ['hot', 'hot', 'store (ram: digest mismatch)', 'hot'];
const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-sources-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('restore sources', () => {
  const journal = [start, ...sources.map((s, i) => restore(i + 1, s))];
  const want = { hot: 3, 'store (ram: digest mismatch)': 1 };

  it('are counted by analyze(), and absent when no restore says', () => {
    expect(analyze(journal).summary.restoreSources).toEqual(want);
    expect(analyze([start, restore(1), restore(2)]).summary.restoreSources).toBeUndefined();
  });

  it('are counted the same from a journal file: fast path, reference path, split over threads', async () => {
    const run = path.join(dir, 'run');
    rmSync(run, { recursive: true, force: true });
    mkdirSync(run);
    writeFileSync(path.join(run, 'journal.ndjson'), journal.map((e) => `${encodeEvent(e)}\n`).join(''));
    for (const options of [{ fastPath: true }, { fastPath: false }, { parallelFromBytes: 1, threads: 2 }])
      expect((await loadRuns([run], options)).analysis.summary.restoreSources, JSON.stringify(options)).toEqual(want);
  });
});
