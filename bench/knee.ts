// The knee (issue 36, item 3): the same soak at N = 1, 2, 4, 8, 16 sessions at once (process; 1, 2, 4 on the micro-VM),
// each run by the real CLI with --strict-timing (the sessions' own load is what is measured: a timing gate is judged as
// measured, and the share of CPU other processes took is printed beside it so outside load is seen). Per N: downtime
// p50/p95, checkpoint pause p95, what the store took per second, peak PSS of the runner's process tree and sessions per
// GiB of it, dedup over the shared store and for a store per session, the load average, the verdict; then the largest
// N at which every gate passed, with its kill-and-resume interval, and a page with the chart of downtime against N
// (knee-page.ts).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchArgs } from './args.js';
import { treePssBytes } from './tree-memory.js';
import { kneePage, type KneeRow } from './knee-page.js';

const { values } = benchArgs(
  'knee',
  'Downtime, pauses, store rate, memory and gates of one soak against the number of sessions at once.',
  {
    target: 'process or microvm',
    sessions: 'the N to run, comma-separated (default: 1,2,4,8,16 on process, 1,2,4 on microvm)',
    scenario: 'scenario name or file',
    cycles: 'cycles per session (a gate needs its n: kill-and-resume 73 clustered trials, downtime p95 59 samples)',
    'boot-samples':
      "boot samples before each soak's sessions start (default: the scenario's; 0 leaves gate 1 insufficient)",
    out: 'folder for knee.json, knee.md and index.html (default: reports/<date>-knee-<target>)',
    keep: 'keep the scratch folder (run folders and reports) and print its path',
  },
  {
    options: {
      target: { type: 'string', default: 'process' },
      sessions: { type: 'string' },
      scenario: { type: 'string', default: 'default' },
      cycles: { type: 'string', default: '80' },
      'boot-samples': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean', default: false },
    },
  },
);

function fail(message: string, code: number): never {
  process.stderr.write(`knee: ${message}\n`);
  process.exit(code);
}

const target = values.target;
if (target !== 'process' && target !== 'microvm') fail(`--target must be process or microvm, got "${target}"`, 3);
const ns = (values.sessions ?? (target === 'process' ? '1,2,4,8,16' : '1,2,4')).split(',').map(Number);
if (ns.some((n) => !Number.isInteger(n) || n < 1 || n > 64)) fail('--sessions must list whole numbers 1-64', 3);
const cycles = Number(values.cycles);
if (!Number.isInteger(cycles) || cycles < 1) fail('--cycles must be a positive integer', 3);

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'harness', 'cli.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-knee-'));
const loadavg = (): number => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

/** What the CLI's --json result and summary.json say (the fields this bench reads). */
interface RunJson {
  verdict: string;
  reportDir: string;
  gates: { id: number; verdict: string; interval: [number, number] | null; note: string; observed: number | null }[];
}
interface SummaryJson {
  downtimeMs: { n: number; p50: number | null; p95: number | null };
  checkpointPauseMs: { n: number; p95: number | null };
  dedup: { ratio: number | null; logicalBytes: number; storedBytes: number; checkpoints: number };
  killResume: { successes: number; trials: number };
  cycles: { failed: number };
  elapsedMs?: number;
  machineLoad?: { load1: { p50: number }; otherCpuPct: { p50: number } };
  sessions?: { dedup: { apartRatio: number | null } };
}

/** The gates that did not pass, grouped by verdict: "fail 4; insufficient 1, 2". */
function notPassing(gates: RunJson['gates']): string[] {
  const by = new Map<string, number[]>();
  for (const g of gates) if (g.verdict !== 'pass') by.set(g.verdict, [...(by.get(g.verdict) ?? []), g.id]);
  return [...by].map(([verdict, ids]) => `${verdict} ${ids.join(', ')}`);
}

/** One soak of `n` sessions through the CLI, its process tree's PSS sampled every 500 ms. */
async function soak(n: number): Promise<KneeRow> {
  const reports = path.join(tmp, `reports-${n}`);
  mkdirSync(reports);
  const args = [cli, 'run', '--scenario', values.scenario, '--target', target, '--sessions', String(n)];
  args.push('--cycles', String(cycles), '--strict-timing', '--json');
  if (values['boot-samples'] !== undefined) args.push('--boot-samples', values['boot-samples']);
  args.push('--out', path.join(tmp, `runs-${n}`), '--report-dir', reports);
  const loadBefore = loadavg();
  const t0 = Date.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treePssBytes(child.pid!))), 500);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(sampler);
  if (code === null || code > 2) fail(`${n} sessions: soak ended with ${code}: ${stderr.trim().split('\n').at(-1)}`, 4);
  const run = JSON.parse(stdout) as RunJson;
  const s = JSON.parse(readFileSync(path.join(run.reportDir, 'summary.json'), 'utf8')) as SummaryJson;
  const seconds = (s.elapsedMs ?? Date.now() - t0) / 1000;
  const gate = (id: number) => run.gates.find((g) => g.id === id);
  return {
    n,
    verdict: run.verdict,
    failing: notPassing(run.gates),
    cycles: s.killResume.trials,
    failed: s.cycles.failed,
    killResume: `${s.killResume.successes}/${s.killResume.trials}`,
    killResumeInterval: gate(6)?.interval ?? null,
    killResumeNote: gate(6)?.note ?? '',
    downP50: s.downtimeMs.p50,
    downP95: s.downtimeMs.p95,
    downP95Interval: gate(4)?.interval ?? null,
    pauseP95: s.checkpointPauseMs.p95,
    checkpointsPerS: s.dedup.checkpoints / seconds,
    logicalMBps: s.dedup.logicalBytes / seconds / 1e6,
    storedKBps: s.dedup.storedBytes / seconds / 1e3,
    dedup: s.dedup.ratio,
    apartDedup: s.sessions?.dedup.apartRatio ?? null,
    peakPssMiB: peak / 2 ** 20,
    sessionsPerGiB: peak > 0 ? n / (peak / 2 ** 30) : null,
    load: { before: loadBefore, after: loadavg(), p50: s.machineLoad?.load1.p50 ?? null },
    otherCpuP50: s.machineLoad?.otherCpuPct.p50 ?? null,
    seconds: (Date.now() - t0) / 1000,
  };
}

const fmt = (x: number | null, d = 0): string => (x === null ? '-' : x.toFixed(d));
const rows: KneeRow[] = [];
process.stdout.write(
  `knee: ${target}, scenario ${values.scenario}, ${cycles} cycles per session, N = ${ns.join(', ')}, ${os.cpus().length} cores, load ${loadavg()}\n`,
);
process.stdout.write(
  '| N | verdict | kill-resume | downtime p50 / p95 ms | pause p95 ms | ckpt/s | stored KB/s | dedup shared / apart | peak PSS MiB | sessions/GiB | load p50 | other CPU % | s |\n' +
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|\n',
);
for (const n of ns) {
  const r = await soak(n);
  rows.push(r);
  process.stdout.write(
    `| ${n} | ${r.verdict}${r.failing.length > 0 ? ` (${r.failing.join('; ')})` : ''} | ${r.killResume} | ${fmt(r.downP50)} / ${fmt(r.downP95)} | ${fmt(r.pauseP95, 1)} | ${r.checkpointsPerS.toFixed(1)} | ${r.storedKBps.toFixed(1)} | ${fmt(r.dedup, 1)} / ${fmt(r.apartDedup, 1)} | ${r.peakPssMiB.toFixed(0)} | ${fmt(r.sessionsPerGiB, 1)} | ${fmt(r.load.p50, 1)} | ${fmt(r.otherCpuP50)} | ${r.seconds.toFixed(0)} |\n`,
  );
}
const page = await kneePage({ target, scenario: values.scenario, cycles, cores: os.cpus().length, rows });
const out = values.out ?? path.join(root, 'reports', `${new Date().toISOString().slice(0, 10)}-knee-${target}`);
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, 'knee.json'), `${JSON.stringify({ schemaVersion: 1, target, cycles, rows }, null, 2)}\n`);
writeFileSync(path.join(out, 'knee.md'), page.markdown);
writeFileSync(path.join(out, 'index.html'), page.html);
process.stdout.write(`${page.largest}\nknee page: ${path.join(out, 'index.html')}\n`);
// a soak whose checker failed cycles is evidence: its run folder is kept whatever --keep says
const failedAt = rows.filter((r) => r.failed > 0).map((r) => r.n);
if (values.keep || failedAt.length > 0)
  process.stdout.write(
    `kept ${tmp}${failedAt.length > 0 ? ` (failed cycles at N = ${failedAt.join(', ')}: its run folder is the evidence)` : ''}\n`,
  );
else rmSync(tmp, { recursive: true, force: true });
