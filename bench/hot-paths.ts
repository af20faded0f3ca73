// tinybench microbenchmarks of the hot paths: journal append (awaiting its fsync), journal parse + analysis (JSON.parse per event,
// and the fast path from a file), store ingest.
// Run: npm run bench. Compare ratios within one run and quote medians: the machines are shared and noisy.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Bench } from 'tinybench';
import { analyze } from '../harness/analysis/analyze.js';
import { JournalWriter, parseJournal } from '../harness/journal/writer.js';
import { loadRuns } from '../harness/analysis/load-runs.js';
import { CdcCutter } from '../harness/store/chunking/ingest.js';
import { Store } from '../harness/store/store.js';
import { syntheticJournalLines } from './synthetic-journal.js';
import { benchArgs } from './args.js';

benchArgs(
  'hot-paths',
  'tinybench microbenchmarks of the hot paths: journal append (awaiting its fsync), journal parse + analysis, store ingest.',
  {},
  { options: {} },
);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-bench-'));
const journal = new JournalWriter(path.join(tmp, 'journal.ndjson'), () => 0);
const text10k = [...syntheticJournalLines(10_000)].join('');
const run10k = path.join(tmp, 'run-10k');
mkdirSync(run10k);
writeFileSync(path.join(run10k, 'journal.ndjson'), text10k);
const store = Store.open(path.join(tmp, 'store'));
// 16 MiB of which most 4 KiB pages repeat between checkpoints (like guest RAM between two snapshots).
const base = Buffer.alloc(16 << 20);
for (let i = 0; i < base.length; i += 4096) base.writeUInt32LE(i / 4096, i);
let round = 0;

const bench = new Bench({ time: 2000, warmupTime: 300 });
bench
  .add('journal append + durable() (1 event, fsynced)', async () => {
    journal.append({ type: 'cycle-start', cycle: 1, phase: 'work' });
    await journal.durable();
  })
  .add('parse + analyze a 10,000-cycle journal', () => {
    analyze(parseJournal(text10k, 'synthetic').events);
  })
  .add('loadRuns a 10,000-cycle journal (fast path)', async () => {
    await loadRuns([run10k]);
  })
  .add('content-defined chunking of 16 MiB', () => {
    const cutter = new CdcCutter(() => {});
    cutter.push(base);
    cutter.end();
  })
  .add('store ingest 16 MiB, 1% of pages changed', async () => {
    const data = Buffer.from(base);
    round++;
    for (let p = 0; p < 41; p++) data.writeUInt32LE(round, ((round * 97 + p * 101) % 4096) * 4096 + 8);
    const w = store.begin(round);
    await w.put('ram', data);
    w.commit();
  });

await bench.run();
const rows = bench.tasks.map((t) => {
  const r = t.result as { latency?: { p50?: number; mean?: number }; throughput?: { mean?: number } } | undefined;
  const p50 = r?.latency?.p50 ?? r?.latency?.mean ?? NaN;
  return { task: t.name, 'median ms': p50.toFixed(3), 'ops/s': (r?.throughput?.mean ?? 0).toFixed(1) };
});
console.table(rows);
const mibPerS = (row: { 'median ms': string } | undefined): string =>
  row ? ((16 / Number(row['median ms'])) * 1000).toFixed(0) : '?';
console.log(
  `content-defined chunking: ${mibPerS(rows[3])} MiB/s; store ingest: ${mibPerS(rows[4])} MiB/s of logical data (medians)`,
);
journal.close();
store.close();
rmSync(tmp, { recursive: true, force: true });
