// store-vs-peers: the result as Markdown (one row per system, the done-when bars of issue 6, the environment and the
// machine's load), and the peer tools' presence and versions.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { mib, run } from './common.js';
import type { Result } from './measure.js';
import type { Series } from './series.js';

/** Whether `tool` is an executable name on PATH. */
export const onPath = (tool: string): boolean =>
  (process.env.PATH ?? '').split(path.delimiter).some((d) => d !== '' && existsSync(path.join(d, tool)));

/** The first line of a tool's version output, without its name; 'not installed' when it does not run. */
export async function toolVersion(tool: string, args: string[]): Promise<string> {
  try {
    return (await run(tool, args))
      .split('\n')[0]!
      .replace(new RegExp(`^${tool}\\s+`), '')
      .trim();
  } catch {
    return 'not installed';
  }
}

/** The guest disk's ext4 journaling as the series recorded it (series captured before the option: not recorded). */
function diskFs(series: Series): string {
  const fc = series.target.diskFastCommit;
  return fc === undefined ? '' : fc ? ' (ext4 fast_commit)' : ' (ext4, plain jbd2)';
}

/** The result as Markdown: the series, one row per system, the issue's bars, the environment and load. */
export function markdown(
  series: Series,
  results: Result[],
  env: Record<string, string | number>,
  skipped: string[],
): string {
  const n = series.checkpoints.length;
  const ramDisk = n * (series.guestRamMiB + series.diskMiB) * 2 ** 20;
  const rows = results.map((r) =>
    [
      r.id,
      r.settings,
      mib(r.storedBytes),
      mib(r.allocatedBytes),
      `${(series.logicalBytes / r.storedBytes).toFixed(1)}x`,
      `${(ramDisk / r.storedBytes).toFixed(1)}x`,
      r.ingestS.toFixed(1),
      (series.logicalBytes / 1e6 / r.ingestS).toFixed(0),
      r.ingestCpuS.toFixed(1),
      r.restoreS.toFixed(2),
      r.identical ? 'yes' : `**NO** (${r.mismatches.join('; ')})`,
    ].join(' | '),
  );
  const lines = [
    `### store-vs-peers: ${n} checkpoints of one micro-VM session`,
    '',
    `Series: ${n} checkpoints ${series.everyMs} ms apart (${series.createdAt}), guest ${series.guestRamMiB} MiB RAM + ${series.diskMiB} MiB disk${diskFs(series)}, ${series.target.accelerator}, QEMU ${series.target.qemuVersion}, ramCapture ${series.target.ramCapture}.`,
    `Logical bytes: ${mib(series.logicalBytes)} MiB (sum of part files: ${partSummary(series)}); N x (guest RAM + disk) = ${mib(ramDisk)} MiB.`,
    '',
    '| system | settings | stored MiB | on disk MiB | ratio | ratio vs N x (RAM+disk) | ingest s | ingest MB/s | ingest CPU s | restore last s | restored identical |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) => `| ${r} |`),
    '',
    'stored = sum of file sizes in the repository folder (caches outside it); on disk = allocated blocks; ratio = logical / stored;',
    'MB/s = 10^6 bytes of the series per second of ingest wall time; CPU = user + system of the tool (ours: this process);',
    'restore = the last checkpoint, every part, into an empty folder on the same disk, with a warm page cache.',
    ...bars(series, results),
    skipped.length > 0 ? `Skipped (tool missing, --skip-missing): ${skipped.join(', ')}.` : '',
    '',
    `Environment: ${Object.entries(env)
      .map(([k, v]) => `${k} ${v}`)
      .join('; ')}.`,
    `Load average (1/5/15 min) and QEMU processes running: at capture ${series.loadAvgAtCapture?.join('/') ?? 'not recorded'}; ${results.map((r) => `${r.id} ${r.loadAvgAtStart.map((x) => x.toFixed(2)).join('/')} (${r.otherQemuAtStart} QEMU)`).join(', ')}.`,
    'Each number is from one run on a shared machine (other sessions may run QEMU and tests): measured once, not a distribution.',
  ];
  return lines.filter((l, i) => l !== '' || lines[i - 1] !== '').join('\n');
}

function partSummary(series: Series): string {
  const by = new Map<string, number[]>();
  for (const c of series.checkpoints) for (const p of c.parts) by.set(p.name, [...(by.get(p.name) ?? []), p.size]);
  return [...by].map(([name, s]) => `${name} ${mib(Math.min(...s))}-${mib(Math.max(...s))} MiB`).join(', ');
}

/** The done-when bars of issue 6, each with the measured value beside its verdict. */
function bars(series: Series, results: Result[]): string[] {
  const resticR = results.find((r) => r.id === 'restic');
  return results
    .filter((r) => r.id.startsWith('ours-') && r.id.endsWith('-none'))
    .flatMap((r) => {
      const ratio = series.logicalBytes / r.storedBytes;
      const vsRestic =
        resticR === undefined
          ? 'restic not run'
          : `${r.restoreS.toFixed(2)} s vs restic ${resticR.restoreS.toFixed(2)} s: ${r.restoreS < resticR.restoreS ? 'pass' : 'FAIL'}`;
      return [
        `Bars, ${r.id}: dedup >= 19x: ${ratio.toFixed(1)}x ${ratio >= 19 ? 'pass' : 'FAIL'}${series.checkpoints.length === 20 ? '' : ` (bar is for 20 checkpoints; this series has ${series.checkpoints.length})`}; restore byte-identical: ${r.identical ? 'pass' : 'FAIL'}; restore faster than restic: ${vsRestic}.`,
      ];
    });
}
