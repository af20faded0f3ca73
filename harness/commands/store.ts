// `soak store stats|verify <dir>`: accounting and integrity of a run's checkpoint store.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { EXIT, InputError } from '../core/errors.js';
import { escapedJson, visible } from '../core/visible.js';
import { gcStore } from '../store/gc.js';
import { isStore, Store } from '../store/store.js';
import { storeStats, verifyStore } from '../store/check/verify.js';
import { defineCommand, type SoakCommand } from './command.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';

interface StoreArgs {
  dir: string;
  json: boolean;
}

/** Accept a run folder (uses its store/) or a store folder; never creates one. Locked as `lock` says until closed. */
function openExisting(dir: string, lock: 'shared' | 'exclusive' = 'shared', purpose = 'store command'): Store {
  const abs = path.resolve(dir);
  const candidate = isStore(abs) ? abs : path.join(abs, 'store');
  if (!existsSync(abs)) throw new InputError(`${abs} does not exist (pass a run folder or its store/ folder)`);
  if (!isStore(candidate)) throw new InputError(`${abs} is neither a store nor a run folder with a store/ inside`);
  return Store.open(candidate, { lock, purpose });
}

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(2)} MiB`;

const positional = (y: Argv): Argv<StoreArgs> =>
  y
    .positional('dir', { type: 'string', demandOption: true, describe: 'Run folder or store folder' })
    .option('json', { type: 'boolean', default: false, describe: 'JSON output' });

const statsCommand = defineCommand<StoreArgs>({
  command: 'stats <dir>',
  describe: 'Logical vs stored bytes and dedup ratio, per checkpoint and cumulative',
  builder: positional,
  run: (argv) => {
    const store = openExisting(argv.dir, 'shared', 'store stats');
    let stats;
    try {
      stats = storeStats(store);
    } finally {
      store.close();
    }
    if (argv.json) {
      process.stdout.write(`${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...stats }, 2)}\n`);
      return EXIT.pass;
    }
    const lines = ['  seq      step     logical      stored  new chunks  (deltas)    ratio   cum.ratio'];
    for (const r of stats.checkpoints) {
      const deltas = r.newDeltas === null ? '-' : String(r.newDeltas);
      lines.push(
        `${String(r.seq).padStart(5)} ${String(r.step).padStart(9)} ${mib(r.logicalBytes).padStart(11)} ${mib(r.storedBytes).padStart(11)} ${String(r.newChunks).padStart(11)} ${deltas.padStart(9)} ${(r.ratio?.toFixed(1) ?? '-').padStart(8)} ${(r.cumRatio?.toFixed(2) ?? '-').padStart(11)}`,
      );
    }
    lines.push(
      `${stats.checkpoints.length} checkpoints: logical ${mib(stats.logicalBytes)}, stored ${mib(stats.storedBytes)}, dedup ratio ${stats.ratio?.toFixed(2) ?? 'n/a'}; on disk ${mib(stats.diskBytes)}`,
    );
    if (stats.guestLogicalBytes !== stats.logicalBytes) {
      lines.push(
        `counting each migration stream at the guest RAM size it declares: logical ${mib(stats.guestLogicalBytes)}, ratio ${stats.guestRatio?.toFixed(2) ?? 'n/a'}`,
      );
    }
    for (const s of stats.skipped) lines.push(`skipped: ${s.problem} (not counted; "soak store verify" reports it)`);
    process.stdout.write(visible(`${lines.join('\n')}\n`));
    return EXIT.pass;
  },
});

interface VerifyArgs extends StoreArgs {
  'part-digests': boolean;
}

const verifyCommand = defineCommand<VerifyArgs>({
  command: 'verify <dir>',
  describe:
    'Re-hash every chunk of every committed checkpoint; exit 1 if any is corrupt or missing, or a manifest fails its check',
  builder: (y: Argv) =>
    positional(y).option('part-digests', {
      type: 'boolean',
      default: true,
      describe: "Also rebuild each part and check its whole-part SHA-256 (--no-part-digests: only each chunk's)",
    }),
  run: (argv) => {
    const store = openExisting(argv.dir, 'shared', 'store verify');
    let report;
    try {
      report = verifyStore(store, { partDigests: argv['part-digests'] });
    } finally {
      store.close();
    }
    if (argv.json) process.stdout.write(`${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...report }, 2)}\n`);
    else {
      for (const p of report.problems)
        process.stdout.write(
          visible(
            p.part === '(manifest)' || p.part === '(chunk index)' || p.part === '(pack index)'
              ? `${p.problem}\n`
              : `checkpoint ${p.seq} part ${p.part}: ${p.problem}\n`,
          ),
        );
      process.stdout.write(
        `${report.checkpoints} checkpoints, ${report.chunksChecked} chunk references checked: ${report.problems.length === 0 ? 'OK' : `${report.problems.length} problems`}\n`,
      );
    }
    return report.problems.length === 0 ? EXIT.pass : EXIT.fail;
  },
});

interface GcArgs extends StoreArgs {
  keep: number;
}

const gcCommand = defineCommand<GcArgs>({
  command: 'gc <dir>',
  describe:
    'Keep the newest N checkpoints, delete the rest and reclaim the chunks only they used (safe to kill at any moment)',
  builder: (y: Argv) =>
    positional(y).option('keep', {
      type: 'number',
      demandOption: true,
      describe: 'How many of the newest checkpoints to keep (>= 1)',
    }),
  run: (argv) => {
    const store = openExisting(argv.dir, 'exclusive', 'store gc');
    let report;
    try {
      report = gcStore(store, argv.keep);
    } finally {
      store.close();
    }
    if (argv.json) {
      process.stdout.write(`${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...report }, 2)}\n`);
    } else {
      const lines = [
        `kept ${report.kept.length} checkpoints${report.kept.length > 0 ? ` (${report.kept[0]}..${report.kept.at(-1)})` : ''}, removed ${report.removed.length}`,
        `packs ${report.packsBefore} -> ${report.packsAfter} (${report.packsDeleted} wholly dead deleted, ${report.packsRewritten} rewritten, ${report.tornPacksRemoved} torn removed); chunks copied ${report.chunksCopied}, dropped ${report.chunksDropped}`,
        `on disk ${mib(report.bytesBefore)} -> ${mib(report.bytesAfter)}`,
      ];
      if (report.lockTempsRemoved > 0)
        lines.push(`removed ${report.lockTempsRemoved} lock temp files of takers that died while writing their lock`);
      if (report.missingChunks > 0)
        lines.push(
          `warning: kept checkpoints need ${report.missingChunks} chunks no intact pack holds; run "soak store verify"`,
        );
      process.stdout.write(visible(`${lines.join('\n')}\n`));
    }
    return report.missingChunks === 0 ? EXIT.pass : EXIT.fail;
  },
});

export const storeCommand: SoakCommand = {
  command: VERBS.store.command,
  describe: VERBS.store.describe,
  subcommands: [statsCommand, verifyCommand, gcCommand],
};
