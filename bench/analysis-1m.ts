// Bench: stream and analyse a synthetic journal of N cycles (default 1,000,000) from disk; prints time and peak memory.
// Run: npm run bench -- analysis-1m   (or node dist/bench/analysis-1m.js 200000)
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RunAccumulator } from '../harness/analysis.js';
import { streamJournal } from '../harness/journal-read.js';
import { syntheticJournalLines } from './synthetic-journal.js';

const cycles = Number(process.argv[2] ?? 1_000_000);
const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-bench-1m-'));
const file = path.join(dir, 'journal.ndjson');
const fd = openSync(file, 'w');
let batch: string[] = [];
for (const line of syntheticJournalLines(cycles)) {
  batch.push(line);
  if (batch.length >= 10_000) {
    writeSync(fd, batch.join(''));
    batch = [];
  }
}
writeSync(fd, batch.join(''));
closeSync(fd);
const size = statSync(file).size;

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
(globalThis as { gc?: () => void }).gc?.();
const rssBefore = process.memoryUsage().rss;
const t0 = process.hrtime.bigint();
const acc = new RunAccumulator();
streamJournal(file, (e) => acc.add(e));
const analysis = acc.finish(file);
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);
const s = analysis.summary;
console.log(`journal: ${cycles.toLocaleString('en')} cycles, ${(size / 2 ** 20).toFixed(0)} MiB`);
console.log(`analysis: ${(ms / 1000).toFixed(2)} s; peak RSS ${(peakRss / 2 ** 20).toFixed(0)} MiB (before: ${(rssBefore / 2 ** 20).toFixed(0)} MiB)`);
console.log(`result: ${s.cycles.total} cycles, ${s.killResume.successes}/${s.killResume.trials} ok, downtime p95 ${s.downtimeMs.p95?.toFixed(1)} ms, ${s.dedup.checkpoints} checkpoints`);
rmSync(dir, { recursive: true, force: true });
