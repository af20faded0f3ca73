// `npm run bench [name...]`: run the benchmarks (all cheap ones by default; "microvm" boots real QEMU guests).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cheap = ['hot-paths', 'report', 'store-ingest'];
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(
    `usage: npm run bench [-- name...]\n\nRuns each named bench (default: ${cheap.join(', ')}); the others are ` +
      'analysis-1m, lz4-decode, store-read, microvm-phases, microvm-dedup, store-vs-peers, lazyfs-overhead, effects-ledger, probe-cost. `node dist/bench/<name>.js --help` lists its options.\n',
  );
  process.exit(0);
}
const wanted = args.length > 0 ? args : cheap;
let failed = 0;
for (const name of wanted) {
  const file = path.join(here, name.endsWith('.js') ? name : `${name}.js`);
  process.stdout.write(`\n== bench ${name} ==\n`);
  const r = spawnSync(process.execPath, ['--expose-gc', file], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);
