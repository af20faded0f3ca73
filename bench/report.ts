// Bench: writeReport on a synthetic N-cycle run (default 10,000), each run in a fresh process so its peak RSS is its
// own; prints every run and the medians. The analysis comes from the report fixture, or with --journal from a synthetic
// journal on disk loaded as `soak report` loads it (loadRuns, judge, writeReport).
// Run: npm run bench -- report   or   node dist/bench/report.js [cycles] [--runs 3] [--journal]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { judge } from '../harness/gates/judge.js';
import { writeReport } from '../harness/report/write.js';
import { loadRuns } from '../harness/analysis/load-runs.js';
import type { GateResult } from '../harness/gates/types.js';
import type { RunAnalysis } from '../harness/analysis/summary.js';
import { makeAnalysis, makeGates } from '../test/report/fixtures.js';
import { writeSyntheticRun } from './synthetic-journal.js';
import { benchArgs } from './args.js';

const { values, positionals } = benchArgs(
  'report',
  'writeReport on a synthetic N-cycle run (default 10,000), each run in a fresh process; prints every run and the medians.',
  {
    runs: 'runs; each and the median are printed',
    journal: 'load a synthetic journal from disk as soak report does, instead of the report fixture',
    write: 'internal: write one report into this folder',
    from: 'internal: the run folder to report',
    args: 'cycles (default 10000)',
  },
  {
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '3' },
      journal: { type: 'boolean', default: false },
      write: { type: 'string' },
      from: { type: 'string' },
    },
  },
);
const MIB = 2 ** 20;
const peakRssMiB = (): number => (process.resourceUsage().maxRSS * 1024) / MIB;

/** What one report-writing process reports. */
interface RunFigures {
  /** Seconds in writeReport alone. */
  seconds: number;
  /** Seconds to build or load the analysis before it. */
  inputSeconds: number;
  /** Peak RSS of the whole process, and the peak it had reached before writeReport began (the input's share). */
  peakRssMiB: number;
  inputPeakRssMiB: number;
  cycles: number;
  checkpoints: number;
  indexHtmlBytes: number;
  /** Bytes of every file in the report folder. */
  reportBytes: number;
}

/** Child mode: build (or load) the analysis, write the report once into a temp folder, print the figures as JSON. */
async function writeOnce(cycles: number, runDir: string | undefined): Promise<void> {
  const t0 = process.hrtime.bigint();
  let analysis: RunAnalysis;
  let gates: GateResult[];
  if (runDir === undefined) {
    const at = (share: number): number => Math.max(1, Math.round(cycles * share));
    analysis = makeAnalysis({
      cycles,
      failedCycles: [at(0.1234), at(0.5678), at(0.9001)],
      restoreKills: true,
      target: 'microvm',
    });
    gates = makeGates(analysis);
  } else {
    analysis = (await loadRuns([runDir])).analysis;
    gates = judge(analysis).gates;
  }
  const inputSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
  globalThis.gc?.();
  const inputPeakRssMiB = peakRssMiB();
  const reportsDir = mkdtempSync(path.join(os.tmpdir(), 'soak-bench-report-'));
  try {
    const start = process.hrtime.bigint();
    const { dir, files } = await writeReport({ analysis, gates, reportsDir });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const figures: RunFigures = {
      seconds,
      inputSeconds,
      peakRssMiB: peakRssMiB(),
      inputPeakRssMiB,
      cycles: analysis.summary.cycles.total,
      checkpoints: analysis.checkpoints.length,
      indexHtmlBytes: statSync(path.join(dir, 'index.html')).size,
      reportBytes: files.reduce((sum, f) => sum + statSync(f).size, 0),
    };
    process.stdout.write(`${JSON.stringify(figures)}\n`);
  } finally {
    rmSync(reportsDir, { recursive: true, force: true });
  }
}

/** Write the synthetic journal into a fresh run folder. */
function writeJournal(cycles: number): string {
  return writeSyntheticRun(cycles, 'soak-bench-report-run-').dir;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

/** Parent mode: write the report `--runs` times in child processes, print each run and the medians. */
function main(): void {
  const cycles = Number(positionals[0] ?? 10_000);
  if (!Number.isInteger(cycles) || cycles < 1)
    throw new Error(`cycles: expected a positive integer, got ${positionals[0]}`);
  const runDir = values.journal ? writeJournal(cycles) : undefined;
  const source = runDir === undefined ? 'report fixture' : 'synthetic journal via loadRuns + judge';
  console.log(`writeReport: ${cycles.toLocaleString('en')} cycles from the ${source}; ${os.cpus().length} cores`);
  const runs: RunFigures[] = [];
  try {
    for (let i = 0; i < Number(values.runs); i++) {
      const args = [
        fileURLToPath(import.meta.url),
        '--write',
        String(cycles),
        ...(runDir === undefined ? [] : ['--from', runDir]),
      ];
      const child = spawnSync(process.execPath, ['--expose-gc', ...args], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (child.status !== 0) throw new Error(`report run ${i + 1} failed (exit ${child.status})`);
      const r = JSON.parse(child.stdout) as RunFigures;
      runs.push(r);
      console.log(
        `run ${i + 1}: ${r.seconds.toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB (${r.inputPeakRssMiB.toFixed(0)} MiB before writeReport; ` +
          `input ${r.inputSeconds.toFixed(2)} s); ${r.checkpoints} checkpoints; index.html ${kib(r.indexHtmlBytes)}, report folder ${kib(r.reportBytes)}`,
      );
    }
  } finally {
    if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
  }
  console.log(
    `writeReport, ${cycles} cycles: median of ${runs.length}: ${median(runs.map((r) => r.seconds)).toFixed(2)} s, ` +
      `peak RSS ${median(runs.map((r) => r.peakRssMiB)).toFixed(0)} MiB, index.html ${kib(median(runs.map((r) => r.indexHtmlBytes)))}`,
  );
}

if (values.write !== undefined) await writeOnce(Number(values.write), values.from);
else main();
