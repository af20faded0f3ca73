// Bench: writeReport on a synthetic 10,000-cycle analysis (median of a few runs). Run: npm run build && node dist/bench/report.js
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeReport } from '../harness/report/write.js';
import { makeAnalysis, makeGates } from '../test/report/fixtures.js';

const CYCLES = 10_000;
const RUNS = 5;

/** Time RUNS report writes into a fresh temp folder each; print every run and the median. */
async function main(): Promise<void> {
  const t0 = process.hrtime.bigint();
  const analysis = makeAnalysis({ cycles: CYCLES, failedCycles: [1234, 5678, 9001], restoreKills: true, target: 'microvm' });
  const gates = makeGates(analysis);
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`fixture: ${CYCLES} cycles, ${analysis.checkpoints.length} checkpoints (built in ${buildMs.toFixed(0)} ms)`);
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-bench-report-'));
    try {
      const start = process.hrtime.bigint();
      const { dir, files } = await writeReport({ analysis, gates, reportsDir });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      times.push(ms);
      const html = (await stat(path.join(dir, 'index.html'))).size;
      console.log(`run ${i + 1}: ${ms.toFixed(0)} ms (${files.length} files, index.html ${(html / 1024).toFixed(0)} KiB)`);
    } finally {
      await rm(reportsDir, { recursive: true, force: true });
    }
  }
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? NaN;
  console.log(`writeReport, ${CYCLES} cycles: median ${median.toFixed(0)} ms over ${RUNS} runs (min ${sorted[0]?.toFixed(0)}, max ${sorted.at(-1)?.toFixed(0)})`);
}

await main();
