// End to end (finding 1): `soak store gc --keep 3` in a loop beside a live 60-cycle torn-checkpoint soak (kills land in
// checkpoint writes and in restores). Every gc must either succeed or refuse with exit 3 naming a PID; the run must end
// with no violation, every resume from the newest complete checkpoint, and a store that verifies. Then a damaged
// manifest: `store verify` names it (exit 1) and `store gc` refuses (exit 1). Paced by the journal, never by sleeps.
// Size: 60 cycles is issue 13's done-when ("a 60-cycle process soak with `store gc --keep 3` running in a loop beside
// it"); the gc loop is meant to compete with the soak, so the two are the file's time.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CycleEvent, JournalEvent, ObservationEvent } from '../../harness/journal/events.js';
import { readJournal } from '../../harness/journal/reader.js';
import { cliPath as cli } from '../helpers/paths.js';
import { describeResult, soakIn } from '../helpers/cli.js';

const CYCLES = 60;
let tmp: string;

const soak = soakIn(() => tmp, 600_000);
const out = describeResult;

/** The journal's events so far (a torn last line is tolerated), or [] before it exists. */
function events(runDir: string | null): JournalEvent[] {
  const file = runDir && path.join(runDir, 'journal.ndjson');
  return file && existsSync(file) ? readJournal(file).events : [];
}

/** The run folder under runs/ once it has a store, else null. */
function findRun(): string | null {
  const runs = path.join(tmp, 'runs');
  if (!existsSync(runs)) return null;
  const dir = readdirSync(runs).find((d) => d !== 'latest');
  return dir && existsSync(path.join(runs, dir, 'store', 'checkpoints')) ? path.join(runs, dir) : null;
}

beforeAll(() => {
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build)`);
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-gc-live-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('store gc beside a live soak', () => {
  let runDir: string;

  it('gc either succeeds or refuses with exit 3 naming a PID; no violation, every resume from the newest checkpoint', async () => {
    const state = { finished: false };
    const run = soak(
      'run',
      '--scenario',
      'torn-checkpoint',
      '--cycles',
      String(CYCLES),
      '--out',
      'runs',
      '--report-dir',
      'reports',
    ).finally(() => (state.finished = true));
    const counts = { attempts: 0, succeeded: 0, refused: 0, duringCycles: 0, succeededDuringCycles: 0 };
    const unexpected: string[] = [];
    let found: string | null = null;
    const cyclesDone = (): number => events(found).filter((e) => e.type === 'cycle').length;
    // gc after gc, for as long as the run lives: each attempt is paced by the previous one's end, not by a timer.
    while (!state.finished) {
      found ??= findRun();
      if (found === null) {
        await Promise.race([run, new Promise((r) => setTimeout(r, 25))]); // poll for the run folder to appear
        continue;
      }
      const before = cyclesDone();
      const gc = await soak('store', 'gc', found, '--keep', '3');
      counts.attempts++;
      // Inside the cycles for the whole of this gc: one begun before the last cycle ended may take the store once the
      // runner has finished and let its lease go, which is allowed.
      const during = before > 0 && cyclesDone() < CYCLES;
      if (during) counts.duringCycles++;
      if (gc.exitCode === 0) {
        counts.succeeded++;
        if (during) counts.succeededDuringCycles++;
      } else if (gc.exitCode === 3 && /PID \d+/.test(gc.stderr)) counts.refused++;
      else unexpected.push(out(gc));
    }
    const result = await run;
    expect(found, out(result)).not.toBeNull();
    runDir = found!;
    // After the run every lock is gone: gc runs, and the store still verifies.
    const after = await soak('store', 'gc', runDir, '--keep', '3');
    expect(after.exitCode, out(after)).toBe(0);
    process.stderr.write(`gc beside the live soak: ${JSON.stringify(counts)}; after it: exit ${after.exitCode}\n`);
    expect(unexpected).toEqual([]);
    expect(counts.duringCycles).toBeGreaterThan(0);
    // The runner's lease covers every cycle, restore windows included: no gc got in while cycles were running.
    expect(counts.succeededDuringCycles).toBe(0);

    const all = events(runDir);
    const cycles = all.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycles).toHaveLength(CYCLES);
    expect(cycles.flatMap((c) => c.violations)).toEqual([]);
    expect(cycles.filter((c) => c.outcome !== 'ok').map((c) => c.cycle)).toEqual([]);
    // Kills landed in restores too (the window finding 1 was about).
    expect(all.some((e) => e.type === 'kill' && e.observedPhase === 'restore')).toBe(true);
    const obs = all.filter((e): e is ObservationEvent => e.type === 'observation');
    expect(obs.length).toBeGreaterThan(0);
    expect(obs.filter((o) => o.latestCompleteSeq !== null && o.restoredSeq !== o.latestCompleteSeq)).toEqual([]);

    const verify = await soak('store', 'verify', runDir);
    expect(verify.exitCode, out(verify)).toBe(0);
  }, 900_000);

  it('a damaged manifest: verify names it (exit 1), gc refuses naming it (exit 1), stats says it skipped it', async () => {
    const checkpoints = path.join(runDir, 'store', 'checkpoints');
    const newest = readdirSync(checkpoints)
      .filter((f) => /^\d{10}\.json$/.test(f))
      .sort()
      .at(-1)!;
    const file = path.join(checkpoints, newest);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.slice(0, text.length - 20));
    const verify = await soak('store', 'verify', runDir);
    expect(verify.exitCode, out(verify)).toBe(1);
    expect(verify.stdout).toContain(file);
    const gc = await soak('store', 'gc', runDir, '--keep', '1');
    expect(gc.exitCode, out(gc)).toBe(1);
    expect(gc.stderr).toContain(file);
    const stats = await soak('store', 'stats', runDir);
    expect(stats.exitCode, out(stats)).toBe(0);
    expect(stats.stdout).toMatch(new RegExp(`skipped: .*${newest}`));
  });
});
