// The fresh-session nonce rule across `soak run --resume` (issue 16 follow-up): a resumed runner rebuilds the set of
// boot nonces from the journal (scanToContinue), so a session after the resume point that repeats a nonce from before
// it fails with nonce-reused, exactly as it would have without the runner dying in between. Negative control: the
// empty set a resumed runner used to start with lets that same repeat through.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureEnvironment } from '../../harness/core/environment.js';
import { JournalWriter } from '../../harness/journal/writer.js';
import { FreshNonces } from '../../harness/run/fresh-nonce.js';
import { scanToContinue } from '../../harness/run/continue-run.js';
import { loadScenario } from '../../harness/scenario/scenario.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A dead runner's journal: run-start, then one boot per nonce (cycle i + 1), after the boot samples `samples`. */
function journalWithBoots(nonces: readonly string[], samples: readonly string[] = []): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-nonce-'));
  dirs.push(dir);
  const file = path.join(dir, 'journal.ndjson');
  const j = new JournalWriter(file, () => 1);
  const { scenario } = loadScenario('default', { cycles: 8, bootSamples: samples.length });
  j.append({ type: 'run-start', runId: 'r', startedAt: '', scenario, environment: captureEnvironment({}) });
  samples.forEach((nonce, i) => j.append({ type: 'boot', cycle: 1, bootMs: 100, nonce, sample: i + 1 }));
  nonces.forEach((nonce, i) => j.append({ type: 'boot', cycle: i + 1, bootMs: 100, nonce }));
  j.close();
  return file;
}

const codes = (set: FreshNonces, nonce: string): string[] => set.check(nonce).map((v) => v.code);

describe('fresh nonces across --resume', () => {
  it('a nonce booted before the resume point and again after it is nonce-reused', () => {
    const scan = scanToContinue(journalWithBoots(['aaaa', 'bbbb']));
    expect(scan.nonces).toEqual(['aaaa', 'bbbb']);
    const resumed = new FreshNonces(scan.nonces);
    expect(codes(resumed, 'aaaa')).toEqual(['nonce-reused']);
    expect(codes(resumed, 'cccc')).toEqual([]);
    expect(codes(resumed, 'cccc')).toEqual(['nonce-reused']); // and the new one is remembered after the resume
  });

  it('negative control: a resumed runner without the journal set (the old behaviour) lets the repeat through', () => {
    const scan = scanToContinue(journalWithBoots(['aaaa', 'bbbb']));
    expect(codes(new FreshNonces(), 'aaaa')).toEqual([]);
    expect(codes(new FreshNonces(scan.nonces), 'aaaa')).toEqual(['nonce-reused']);
  });

  it('judges each boot as one unbroken run would, wherever the runner died', () => {
    const boots = ['a1', 'b2', 'a1', 'c3', 'b2', 'd4'];
    const live = new FreshNonces();
    const unbroken = boots.map((n) => codes(live, n));
    expect(unbroken.flat()).toEqual(['nonce-reused', 'nonce-reused']);
    for (let k = 0; k <= boots.length; k++) {
      const before = boots.slice(0, k);
      const resumed = new FreshNonces(scanToContinue(journalWithBoots(before)).nonces);
      const after = boots.slice(k).map((n) => codes(resumed, n));
      expect(after, `resumed after ${k} boots`).toEqual(unbroken.slice(k));
    }
  });

  it('leaves boot samples out, as the live runner does (they are throwaway sessions it never judges)', () => {
    const scan = scanToContinue(journalWithBoots(['aaaa'], ['s1', 's2']));
    expect(scan.nonces).toEqual(['aaaa']);
    expect(codes(new FreshNonces(scan.nonces), 's1')).toEqual([]);
  });
});
