// Boot samples in analysis and gate 1: a real journal plus 59 boot-sample lines is judged on n = 60 (59 samples + the
// session's boot), counted as samples in the summary, and read the same on the fast path, on JSON.parse and split
// over threads; the same journal without them stays insufficient data on gate 1 (the negative control).
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import { encodeEvent } from '../../harness/journal/codec.js';
import { evaluateGates, gateEvidenceFromAnalysis, loadGates } from '../../harness/gates/evaluate.js';
import { findings } from '../../harness/report/findings.js';
import { fixtureText, scratchRunFolders } from '../helpers/journals.js';

const runFolder = scratchRunFolders('soak-boot-samples-');
const gates = loadGates();

/** The process-default fixture with `ms.length` boot-sample lines (times `ms`) right after its run-start. */
function withSamples(ms: readonly number[]): string {
  const [start, ...rest] = fixtureText('process-default').trimEnd().split('\n');
  const t = (JSON.parse(start!) as { t: number }).t; // at run-start's time: a journal's times never go back
  const samples = ms.map((bootMs, i) =>
    encodeEvent({ schemaVersion: 1, t, type: 'boot', cycle: 1, bootMs, nonce: `n${i}`, sample: i + 1 }),
  );
  return `${[start!, ...samples, ...rest].join('\n')}\n`;
}

function gate1(analysis: RunAnalysis) {
  const results = evaluateGates(gates, analysis.summary, gateEvidenceFromAnalysis(analysis));
  return results.find((r) => r.id === 1)!;
}

const quick = Array.from({ length: 59 }, (_, i) => 200 + i); // 200..258 ms, all well under the 1000 ms bar

describe('boot samples', () => {
  it('gate 1 is judged on n = 60 and passes; the summary counts 59 of them as samples', async () => {
    const { analysis } = await loadRuns([runFolder(withSamples(quick))]);
    expect(analysis.summary.bootMs.n).toBe(60);
    expect(analysis.summary.bootSamples).toBe(59);
    const g = gate1(analysis);
    expect([g.n, g.minN, g.verdict, g.solid]).toEqual([60, 59, 'pass', true]);
    expect(findings(analysis).join('\n')).toMatch(
      /Boot to the first full heartbeat, n = 60 \(59 boot samples, throwaway sessions booted before the cycles, and 1 session boot\)/,
    );
  });

  it('negative control: the journal without boot samples is insufficient data on gate 1 (n = 1)', async () => {
    const { analysis } = await loadRuns([runFolder(fixtureText('process-default'))]);
    expect(analysis.summary.bootSamples).toBe(0);
    const g = gate1(analysis);
    expect([g.n, g.verdict]).toEqual([1, 'insufficient']);
  });

  it('a slow tail is never a pass: 4 of 60 boots over the bar are inconclusive, 12 of 60 a solid fail', async () => {
    const slowBy = async (k: number) => {
      const ms = quick.map((x, i) => (i < k ? 1500 + i : x));
      const g = gate1((await loadRuns([runFolder(withSamples(ms))])).analysis);
      return [g.verdict, g.solid];
    };
    expect(await slowBy(4)).toEqual(['inconclusive', false]);
    expect(await slowBy(12)).toEqual(['fail', true]);
  });

  it('the fast path, JSON.parse and a split over threads read the same analysis', async () => {
    const dir = runFolder(withSamples(quick));
    const fast = await loadRuns([dir]);
    expect(await loadRuns([dir], { fastPath: false })).toEqual(fast);
    expect(await loadRuns([dir], { parallelFromBytes: 1, threads: 2 })).toEqual(fast);
  });
});
