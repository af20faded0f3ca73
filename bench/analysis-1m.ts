// Bench: analyse a synthetic journal of N cycles (default 1,000,000) from disk as `soak report` and `soak gates` do
// (loadRuns), in a fresh process per run so its peak RSS is the analysis's own; prints each run and the median.
// Run: npm run bench -- analysis-1m   or   node dist/bench/analysis-1m.js [cycles] [--runs 3] [--threads N] [--json-parse]
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadRuns } from '../harness/analysis/load-runs.js';
import { writeSyntheticRun } from './synthetic-journal.js';
import { benchArgs } from './args.js';

const { values, positionals } = benchArgs(
  'analysis-1m',
  'Analyse a synthetic journal of N cycles (default 1,000,000) as soak report does, one fresh process per run (peak RSS is its own).',
  {
    runs: 'runs; each and the median are printed',
    threads: 'analysis threads (default: up to 4)',
    'json-parse': 'read every line through JSON.parse (the reference path)',
    analyse: 'internal: analyse this journal and print one result',
    args: 'cycles (default 1000000)',
  },
  {
    allowPositionals: true,
    options: {
      runs: { type: 'string', default: '3' },
      threads: { type: 'string' },
      'json-parse': { type: 'boolean', default: false },
      analyse: { type: 'string' },
    },
  },
);
const MIB = 2 ** 20;

/** What one analysing process reports. */
interface RunFigures {
  seconds: number;
  peakRssMiB: number;
  cycles: number;
  ok: number;
  p95: number | null;
  checkpoints: number;
}

/** Child mode: analyse the run folder once and print the figures as JSON. */
async function analyseOnce(dir: string): Promise<void> {
  const t0 = process.hrtime.bigint();
  const { analysis } = await loadRuns([dir], {
    fastPath: !values['json-parse'],
    ...(values.threads ? { threads: Number(values.threads) } : {}),
  });
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const s = analysis.summary;
  const figures: RunFigures = {
    seconds,
    peakRssMiB: (process.resourceUsage().maxRSS * 1024) / MIB,
    cycles: s.cycles.total,
    ok: s.killResume.successes,
    p95: s.downtimeMs.p95,
    checkpoints: s.dedup.checkpoints,
  };
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}

/** Write the synthetic journal into a fresh run folder. */
function writeJournal(cycles: number): { dir: string; bytes: number } {
  return writeSyntheticRun(cycles, 'soak-bench-1m-');
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Parent mode: write the journal, analyse it `--runs` times in child processes, print each run and the medians. */
function main(): void {
  const cycles = Number(positionals[0] ?? 1_000_000);
  const { dir, bytes } = writeJournal(cycles);
  const flags = [
    ...(values.threads ? ['--threads', values.threads] : []),
    ...(values['json-parse'] ? ['--json-parse'] : []),
  ];
  const mode = `${values['json-parse'] ? 'JSON.parse every line' : 'fast path'}, threads ${values.threads ?? 'default'}`;
  console.log(
    `journal: ${cycles.toLocaleString('en')} cycles, ${(bytes / MIB).toFixed(0)} MiB; ${mode}; ${os.cpus().length} cores`,
  );
  const runs: RunFigures[] = [];
  try {
    for (let i = 0; i < Number(values.runs); i++) {
      const load = os.loadavg()[0]!.toFixed(2);
      const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--analyse', dir, ...flags], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      if (child.status !== 0) throw new Error(`analysis run ${i + 1} failed (exit ${child.status})`);
      const r = JSON.parse(child.stdout) as RunFigures;
      runs.push(r);
      console.log(
        `run ${i + 1}: ${r.seconds.toFixed(2)} s, peak RSS ${r.peakRssMiB.toFixed(0)} MiB (load average before: ${load}); ${r.cycles} cycles, ${r.ok} ok, downtime p95 ${r.p95?.toFixed(1)} ms, ${r.checkpoints} checkpoints`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    `median of ${runs.length}: ${median(runs.map((r) => r.seconds)).toFixed(2)} s, peak RSS ${median(runs.map((r) => r.peakRssMiB)).toFixed(0)} MiB`,
  );
}

if (values.analyse !== undefined) await analyseOnce(values.analyse);
else main();
