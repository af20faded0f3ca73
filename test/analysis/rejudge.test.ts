// Analysis judges every observed cycle again with this build's checker: the summary counts the re-checked verdicts
// and names the cycles whose verdict changed, on one thread or several, on the fast path or through JSON.parse.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WorkloadModel } from '../../harness/check/workload.js';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { Rechecker } from '../../harness/analysis/recheck.js';
import { streamJournal } from '../../harness/journal/reader.js';
import type { CycleEvent, JournalEvent, KillEvent } from '../../harness/journal/events.js';
import { RunAccumulator } from '../../harness/analysis/accumulator.js';
import { fixturePath } from '../helpers/paths.js';

const model = new WorkloadModel();
let tmp: string;

/**
 * The process-default fixture with an observation before each resumed cycle's outcome, one the checker verifies
 * (`tamper`: cycles whose observation gets a wrong memory digest instead; `fsBehind`: cycles whose file system is 8
 * steps behind the rest, as the skewed run that wrote the fixture saw it). The fixture journaled every cycle failed
 * ('inconsistent', and 'digest' from cycle 2 on).
 */
function journalWithObservations(name: string, tamper: number[] = [], fsBehind: number[] = []): string {
  const lines = readFileSync(path.join(fixturePath('journals/process-default'), 'journal.ndjson'), 'utf8').split('\n');
  const nonces = new Map<number, string>();
  const out: string[] = [];
  for (const line of lines) {
    if (line === '') continue;
    const e = JSON.parse(line) as { type: string; cycle?: number; t: number };
    if (e.type === 'kill') nonces.set(e.cycle!, (e as KillEvent).nonce);
    if (e.type === 'cycle' && (e as CycleEvent).restoredStep !== null) {
      const c = e as CycleEvent;
      const step = c.restoredStep!;
      const want = model.expected(step);
      const mem = tamper.includes(c.cycle) ? 'f'.repeat(want.mem.length) : want.mem;
      const nonce = nonces.get(c.cycle)!;
      out.push(
        JSON.stringify({
          schemaVersion: 1,
          t: e.t,
          type: 'observation',
          cycle: c.cycle,
          restoredSeq: c.restoredSeq,
          restoredStep: step,
          killStep: c.killStep,
          nonce,
          latestCompleteSeq: c.restoredSeq,
          step,
          heartbeatNonce: nonce,
          full: true,
          fs: fsBehind.includes(c.cycle)
            ? { step: step - 8, digest: model.expected(step - 8).fs }
            : { step, digest: want.fs },
          mem: { step, digest: mem },
          tool: { step, digest: want.tool },
        }),
      );
    }
    out.push(line);
  }
  const dir = mkdtempSync(path.join(tmp, `${name}-`));
  writeFileSync(path.join(dir, 'journal.ndjson'), `${out.join('\n')}\n`);
  return dir;
}

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-rejudge-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('analysis re-judges observed cycles', () => {
  it('negative control: the fixture without observations keeps its journaled verdicts and re-checks nothing', async () => {
    const { analysis } = await loadRuns([fixturePath('journals/process-default')]);
    expect(analysis.summary.recheck).toEqual({ rechecked: 0, agreed: 0, changed: 0, changedCycles: [] });
    expect(analysis.summary.cycles.failed).toBeGreaterThan(0);
  });

  it('counts the re-checked verdicts: a journaled failure the checker now verifies is a changed verdict', async () => {
    const before = (await loadRuns([fixturePath('journals/process-default')])).analysis.summary;
    const { analysis } = await loadRuns([journalWithObservations('clean')]);
    const s = analysis.summary;
    const journaledFails = before.cycles.failed;
    expect(s.recheck!.rechecked).toBe(before.cycles.resumed + before.cycles.failed);
    expect(s.recheck!.changed).toBe(journaledFails);
    expect(s.recheck!.agreed).toBe(s.recheck!.rechecked - journaledFails);
    expect(s.cycles.failed).toBe(0);
    expect(s.violations).toBe(0);
    expect(s.killResume.successes).toBe(before.killResume.successes + journaledFails);
  });

  it('a tampered observation is counted failed, with the digest violation, and named', async () => {
    const clean = (await loadRuns([journalWithObservations('clean')])).analysis.summary;
    const { analysis } = await loadRuns([journalWithObservations('tampered', [3])]);
    const s = analysis.summary;
    expect(s.cycles.failed).toBe(1);
    expect(s.recheck!.changedCycles).toContain(3);
    expect(s.recheck!.changed).toBe(clean.recheck!.changed); // journaled failed too, with other codes
    expect(s.violationSamples.join('\n')).toMatch(/mem: digest at step/);
    const row = Array.from(analysis.cycles.cycle).indexOf(3);
    expect(analysis.cycles.outcome[row]).toBe('fail');
    expect(analysis.cycles.violations[row]).toBe('digest');
  });

  it('a re-checked verdict with the journaled outcome and codes counts as agreed, not changed', async () => {
    const { analysis } = await loadRuns([journalWithObservations('agreeing', [], [1])]);
    const s = analysis.summary;
    expect(s.recheck!.agreed).toBe(1);
    expect(s.recheck!.changedCycles).not.toContain(1);
    expect(s.cycles.failed).toBe(1);
    expect(analysis.cycles.violations[Array.from(analysis.cycles.cycle).indexOf(1)]).toBe('inconsistent');
  });

  it('agrees with `soak check` on which cycles changed', async () => {
    const dir = journalWithObservations('tampered', [3]);
    const checker = new Rechecker();
    streamJournal(path.join(dir, 'journal.ndjson'), (e) => checker.add(e));
    const { analysis } = await loadRuns([dir]);
    expect(checker.result().changed.map((c) => c.cycle)).toEqual(analysis.summary.recheck!.changedCycles);
  });

  it('an outcome journaled indeterminate stays so in `soak check` and in analysis alike: both list the same cycles', async () => {
    const dir = journalWithObservations('indeterminate', [3, 4]);
    const file = path.join(dir, 'journal.ndjson');
    const cause = { code: 'eio', message: 'EIO injected into a store write' };
    const lines = readFileSync(file, 'utf8').split('\n');
    const edited = lines.map((l) => {
      if (!l.includes('"type":"cycle"')) return l;
      const e = JSON.parse(l) as CycleEvent;
      return e.cycle === 3 ? JSON.stringify({ ...e, outcome: 'indeterminate', violations: [], cause }) : l;
    });
    writeFileSync(file, edited.join('\n'));
    const checker = new Rechecker();
    streamJournal(file, (e) => checker.add(e));
    const r = checker.result();
    const { analysis } = await loadRuns([dir]);
    const outcomes = Array.from(analysis.cycles.cycle, (c, i) => [c, analysis.cycles.outcome[i]] as const);
    const indeterminate = outcomes.filter(([, o]) => o === 'indeterminate').map(([c]) => c);
    expect(indeterminate).toEqual([3]);
    expect(r.indeterminate).toEqual(indeterminate);
    expect(r.changed.map((c) => c.cycle)).toEqual(analysis.summary.recheck!.changedCycles);
    expect(r.changed.map((c) => c.cycle)).toContain(4); // negative control: the tampered judged cycle is still re-judged
    expect(r.changed.map((c) => c.cycle)).not.toContain(3);
    expect(r.rechecked).toBe(analysis.summary.recheck!.rechecked);
  });

  it('is the same when the journal is cut into two folds at every line (an observation and its outcome apart)', () => {
    const dir = journalWithObservations('tampered', [2, 5]);
    const events = readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as JournalEvent);
    const whole = new RunAccumulator();
    for (const e of events) whole.add(e);
    const want = whole.finish('whole');
    for (let cut = 1; cut < events.length; cut++) {
      const head = new RunAccumulator();
      const tail = new RunAccumulator();
      for (const e of events.slice(0, cut)) head.add(e);
      for (const e of events.slice(cut)) tail.add(e);
      head.append(tail.partial());
      expect(head.finish('parts'), `cut before line ${cut + 1}`).toEqual(want);
    }
  });

  it('is the same on the fast path, through JSON.parse, and split over 2 to 7 threads', async () => {
    const dir = journalWithObservations('tampered', [2, 5]);
    const one = await loadRuns([dir]);
    expect(await loadRuns([dir], { fastPath: false })).toEqual(one);
    for (let threads = 2; threads <= 7; threads++)
      expect(await loadRuns([dir], { threads, parallelFromBytes: 0 }), `${threads} threads`).toEqual(one);
  });
});
