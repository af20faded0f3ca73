// The fast path's coverage of a journal the real CLI writes now (not only of the checked-in fixtures): a fresh short
// process-target run, read with the fast path, leaves to JSON.parse only the rare events it never reads.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisLineReader } from '../../../harness/analysis/fastpath/line-reader.js';
import { RunAccumulator } from '../../../harness/analysis/accumulator.js';
import { loadRuns } from '../../../harness/analysis/load-runs.js';
import { streamJournal } from '../../../harness/journal/reader.js';
import type { JournalEvent } from '../../../harness/journal/events.js';
import { cliPath } from '../../helpers/paths.js';

/** Events the fast path never reads (nested values, once per run); every other line must be taken. */
const RARE = ['run-start', 'run-end', 'run-resume', 'target-info', 'machine-load'];

let tmp: string;
let journal: string;

beforeAll(async () => {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build)`);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-fresh-fast-'));
  const r = await execaNode(cliPath, ['run', '--cycles', '3', '--boot-samples', '2', '--out', 'runs', '--no-report'], {
    cwd: tmp,
    reject: false,
    timeout: 170_000,
    stdin: 'ignore',
    env: { CI: '1' },
  });
  // The exit code carries the gates' verdict (a loaded machine may miss a timing gate): only the run must be complete.
  expect(r.stdout, r.stderr).toContain('(complete, 3 cycles run now');
  const runs = path.join(tmp, 'runs');
  const [dir] = readdirSync(runs).filter((d) => d !== 'latest');
  journal = path.join(runs, dir!, 'journal.ndjson');
}, 180_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a journal written by a fresh `soak run` (process target)', () => {
  it('is read on the fast path for every event type it reads (100% of those lines)', () => {
    const reader = new AnalysisLineReader(new RunAccumulator());
    const parsed: JournalEvent[] = [];
    const read = streamJournal(journal, (e) => parsed.push(e), { fast: reader.fastLine });
    const slow = parsed.filter((e) => !RARE.includes(e.type) && !(e.type === 'cycle' && e.violations.length > 0));
    expect(slow.map((e) => JSON.stringify(e).slice(0, 160))).toEqual([]);
    expect(read.fastLines).toBe(read.lines - parsed.length);
    expect(read.fastLines).toBeGreaterThanOrEqual(3 * 4); // per cycle at least cycle-start, kill, restore, cycle
    expect(parsed.map((e) => e.type)).toContain('run-start'); // the counter sees the slow path too
  });

  it('and the fast path analyses it as JSON.parse does', async () => {
    const dir = path.dirname(journal);
    expect(await loadRuns([dir])).toEqual(await loadRuns([dir], { fastPath: false }));
  });
});
