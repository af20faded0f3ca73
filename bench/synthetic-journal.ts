// A synthetic journal of N cycles (deterministic), shaped like a real process-target run, for analysis benchmarks.
import { closeSync, mkdtempSync, openSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { encodeEvent } from '../harness/journal/codec.js';
import { JOURNAL_SCHEMA_VERSION, type EventInput } from '../harness/journal/events.js';
import { captureEnvironment } from '../harness/core/environment.js';
import { scenarioSchema } from '../harness/scenario/scenario.js';
import { createRng } from '../harness/stats/random.js';

/** Yield the journal lines (with newline) of an N-cycle run: per cycle a cycle-start, kill, host-start, restore, cycle and two checkpoints. */
export function* syntheticJournalLines(cycles: number, seed = 1, runId = 'synthetic'): Generator<string> {
  const rng = createRng(seed);
  const scenario = scenarioSchema.parse({ name: 'synthetic', cycles, seed });
  let t = 0;
  let step = 0;
  let seq = 0;
  const line = (e: EventInput): string =>
    `${encodeEvent({ schemaVersion: JOURNAL_SCHEMA_VERSION, t: (t += 1), ...e })}\n`;
  yield line({
    type: 'run-start',
    runId,
    startedAt: '2026-12-01T00:00:00.000Z',
    scenario,
    environment: captureEnvironment({ kind: 'synthetic' }),
  });
  yield line({ type: 'boot', cycle: 1, bootMs: 120, nonce: '0123456789abcdef' });
  for (let c = 1; c <= cycles; c++) {
    yield line({ type: 'cycle-start', cycle: c, phase: 'work' });
    for (let k = 0; k < 2; k++) {
      step += 10;
      seq++;
      yield line({
        type: 'checkpoint',
        cycle: c,
        seq,
        step,
        pauseMs: 5 + rng.next() * 10,
        writeMs: 10 + rng.next() * 10,
        logicalBytes: 1_100_000,
        storedBytes: 90_000,
        chunks: 270,
        newChunks: 20,
        meta: {},
      });
    }
    const killStep = step + rng.int(0, 9);
    yield line({
      type: 'kill',
      cycle: c,
      phase: 'work',
      observedPhase: 'work',
      atStep: killStep,
      nonce: '0123456789abcdef',
      lastCommittedSeq: seq,
      lastCommittedStep: step,
      inFlightSeq: null,
    });
    yield line({ type: 'host-start', cycle: c, pid: 1000 + c, mode: 'restore' });
    yield line({ type: 'restore', cycle: c, seq, step, restoreMs: 100 + rng.next() * 50 });
    const ok = rng.next() > 0.001;
    yield line({
      type: 'cycle',
      cycle: c,
      phase: 'work',
      observedPhase: 'work',
      outcome: ok ? 'ok' : 'fail',
      downtimeMs: 250 + rng.next() * 200,
      killStep,
      restoredSeq: seq,
      restoredStep: step,
      lostSteps: killStep - step,
      restoreKills: 0,
      violations: ok ? [] : [{ code: 'inconsistent', message: 'synthetic' }],
    });
  }
  yield line({ type: 'run-end', status: 'complete', cycles });
}

/**
 * Write an N-cycle synthetic journal of `seed` into a fresh run folder under the temp dir named `prefix`...; returns it
 * and its size. Two runs merged together need seeds of their own (one seed twice is the same kill plan).
 */
export function writeSyntheticRun(cycles: number, prefix: string, seed = 1): { dir: string; bytes: number } {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  const file = path.join(dir, 'journal.ndjson');
  const fd = openSync(file, 'w');
  let batch: string[] = [];
  for (const line of syntheticJournalLines(cycles, seed, path.basename(dir))) {
    // its own run id: `soak merge` refuses one run twice
    batch.push(line);
    if (batch.length >= 10_000) {
      writeSync(fd, batch.join(''));
      batch = [];
    }
  }
  writeSync(fd, batch.join(''));
  closeSync(fd);
  return { dir, bytes: statSync(file).size };
}
