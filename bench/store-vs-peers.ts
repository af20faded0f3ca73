// One micro-VM checkpoint series into our store, restic, borg and casync, side by side: stored MiB, ratio, ingest, restore.
// Run after tsc: node dist/bench/store-vs-peers.js [--series DIR] [--checkpoints 20] [--every-ms 2000] [--target-options JSON] [--keep-series]
//   [--systems ours-cdc-none,restic,...] [--skip-missing] [--json]   (--systems defaults to all; ids in SYSTEMS)
// Peers come from Debian's packages: scripts/bench-deps.sh. Exit: 0 done, 1 a restore was not byte-identical,
// 3 usage or a missing peer tool, 4 anything else.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { benchArgs } from './args.js';
import { BenchError, log, run } from './store-vs-peers/common.js';
import { measure, type Result } from './store-vs-peers/measure.js';
import { markdown, onPath, toolVersion } from './store-vs-peers/report.js';
import { captureSeries, loadSeries } from './store-vs-peers/series.js';
import { SYSTEMS, type System } from './store-vs-peers/systems.js';

async function main(): Promise<number> {
  const { values } = benchArgs(
    'store-vs-peers',
    'One micro-VM checkpoint series into our store, restic, borg and casync, side by side: stored MiB, ratio, ingest, restore.',
    {
      series: 'a saved checkpoint series to reuse (default: record a new one)',
      checkpoints: 'checkpoints to record',
      'every-ms': 'time between checkpoints (ms)',
      'keep-series': 'keep the recorded series',
      'target-options': 'microvm targetOptions as JSON',
      systems: 'comma-separated system ids (default: all)',
      'skip-missing': 'skip a peer tool that is not installed instead of exiting 3',
      json: 'JSON output',
    },
    {
      options: {
        series: { type: 'string' },
        checkpoints: { type: 'string' },
        'every-ms': { type: 'string', default: '2000' },
        'keep-series': { type: 'boolean', default: false },
        'target-options': { type: 'string', default: '{}' },
        systems: { type: 'string', default: SYSTEMS.map((s) => s.id).join(',') },
        'skip-missing': { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
      },
    },
  );
  const count = values.checkpoints === undefined ? undefined : Number(values.checkpoints);
  const everyMs = Number(values['every-ms']);
  if (count !== undefined && !(Number.isInteger(count) && count > 0))
    throw new BenchError(`--checkpoints must be a positive integer, got "${values.checkpoints}"`, 3);
  if (!(Number.isInteger(everyMs) && everyMs >= 0))
    throw new BenchError(`--every-ms must be a non-negative integer, got "${values['every-ms']}"`, 3);
  let targetOptions: Record<string, unknown>;
  try {
    const parsed = JSON.parse(values['target-options']) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    targetOptions = parsed as Record<string, unknown>;
  } catch (err) {
    throw new BenchError(
      `--target-options must be a JSON object of microvm target options (e.g. '{"diskFastCommit":false}'): ${(err as Error).message}`,
      3,
    );
  }
  const wanted = values.systems
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (wanted.includes('help')) {
    console.log(SYSTEMS.map((s) => s.id).join('\n'));
    return 0;
  }
  const unknown = wanted.filter((id) => !SYSTEMS.some((s) => s.id === id));
  if (unknown.length > 0)
    throw new BenchError(`--systems: unknown ${unknown.join(', ')} (known: ${SYSTEMS.map((s) => s.id).join(', ')})`, 3);

  // Missing peers are found before a long capture, not after it.
  const skipped: string[] = [];
  const systems: System[] = [];
  for (const sys of SYSTEMS.filter((s) => wanted.includes(s.id))) {
    if (sys.tool !== null && !onPath(sys.tool)) {
      if (!values['skip-missing'])
        throw new BenchError(
          `${sys.tool} (for ${sys.id}) is not installed: run scripts/bench-deps.sh (Debian packages restic borgbackup casync), or pass --skip-missing`,
          3,
        );
      skipped.push(sys.id);
    } else systems.push(sys);
  }
  const clkTck = Number(await run('getconf', ['CLK_TCK']).catch(() => '100')) || 100;

  const root = mkdtempSync(path.join(os.tmpdir(), 'store-vs-peers-'));
  const keep = values['keep-series'];
  const cleanup = (): void => {
    if (!keep) rmSync(root, { recursive: true, force: true });
  };
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
  try {
    const seriesDir = path.resolve(values.series ?? path.join(root, 'series'));
    let series = loadSeries(seriesDir, count);
    if (series === null) {
      mkdirSync(seriesDir, { recursive: true });
      log(`series: capturing ${count ?? 20} checkpoints into ${seriesDir}`);
      series = await captureSeries(seriesDir, count ?? 20, everyMs, root, targetOptions);
    } else log(`series: reusing ${series.checkpoints.length} checkpoints from ${seriesDir}`);

    const results: Result[] = [];
    for (const sys of systems) results.push(await measure(sys, series, seriesDir, root, clkTck));
    const env = {
      node: process.version,
      cpus: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'unknown'}`,
      kernel: os.release(),
      qemu: String(series.target.qemuVersion),
      restic: await toolVersion('restic', ['version']),
      borg: await toolVersion('borg', ['--version']),
      casync: await toolVersion('casync', ['--version']),
    };
    if (values.json) {
      console.log(
        JSON.stringify(
          {
            schemaVersion: 1,
            seriesDir,
            series: { ...series, checkpoints: series.checkpoints.length },
            results,
            skipped,
            env,
            singleRun: true,
          },
          null,
          2,
        ),
      );
    } else console.log(markdown(series, results, env, skipped));
    if (keep) log(`kept: scratch (repositories) in ${root}`);
    if (keep || values.series !== undefined)
      log(`series kept in ${seriesDir}; re-run against it: node dist/bench/store-vs-peers.js --series ${seriesDir}`);
    const bad = results.filter((r) => !r.identical);
    for (const r of bad)
      log(
        `store-vs-peers: FAILED: ${r.id} restored the last checkpoint NOT byte-identical: ${r.mismatches.join('; ')}`,
      );
    return bad.length === 0 ? 0 : 1;
  } finally {
    cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`store-vs-peers: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(err instanceof BenchError ? err.exitCode : 4);
  },
);
