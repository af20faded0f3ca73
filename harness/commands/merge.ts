// `soak merge <run-dir...> --out DIR`: combine shards or nights into one run folder (journal only) for report and gates.
import { closeSync, lstatSync, mkdirSync, openSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Argv } from 'yargs';
import { EXIT, InputError } from '../core/errors.js';
import { escapedJson, visible } from '../core/visible.js';
import { streamJournal } from '../journal/writer.js';
import { makeTempDir, publishDir, writeAll } from '../core/durable.js';
import { mergeEvent, mergeInput, planMerge } from '../journal/merge.js';
import { JOURNAL_FILE, resolveRunDir } from '../analysis/load-runs.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';

interface MergeArgs {
  runDirs: string[];
  out: string;
  force: boolean;
  json: boolean;
}

export const mergeCommand = defineCommand<MergeArgs>({
  command: VERBS.merge.command,
  describe: VERBS.merge.describe,
  builder: (y: Argv) =>
    y
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders to combine' })
      .option('out', { type: 'string', demandOption: true, describe: 'New run folder to create (must not exist)' })
      .option('force', {
        type: 'boolean',
        default: false,
        describe:
          'Merge sources that overlap (the same run, or cycles of one seeded scenario both hold) anyway; the merged run-start and its report say so',
      })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }) as unknown as Argv<MergeArgs>,
  run: (argv) => {
    const out = path.resolve(argv.out);
    if (lstatSync(out, { throwIfNoEntry: false }))
      throw new InputError(`--out ${out} already exists; merge never overwrites a run folder`);
    const dirs = argv.runDirs.map(resolveRunDir);
    const files = dirs.map((d) => path.join(d, JOURNAL_FILE));
    // Pass 1: each source's run-start and cycle ids (the plan; overlapping sources are refused). Pass 2: stream every
    // event into the new journal.
    const inputs = dirs.map((d, i) => mergeInput(d, (onEvent) => streamJournal(files[i]!, onEvent), realpathSync(d)));
    const plan = planMerge(inputs, path.basename(out), { force: argv.force });
    const forced = plan.start.forcedOverlap ?? [];
    for (const why of forced) process.stderr.write(`soak: merge --force: ${visible(why)}\n`);
    // A fresh, unguessable folder beside --out (never an existing one or a planted symlink), then the journal in it.
    mkdirSync(path.dirname(out), { recursive: true });
    const tmp = makeTempDir(out);
    let cycles = 0;
    const fd = openSync(path.join(tmp, JOURNAL_FILE), 'wx', 0o644);
    let done = false;
    try {
      // Events keep their original schemaVersion and times; written in ~1 MiB pieces, fsynced once.
      let piece = `${JSON.stringify(plan.start)}\n`;
      files.forEach((source, i) => {
        streamJournal(source, (e) => {
          const m = mergeEvent(e, plan.shifts[i]!);
          if (m === null) return;
          if (m.type === 'cycle') cycles++;
          piece += `${JSON.stringify(m)}\n`;
          if (piece.length >= 1 << 20) {
            writeAll(fd, Buffer.from(piece));
            piece = '';
          }
        });
      });
      writeAll(fd, Buffer.from(piece));
      done = true;
    } finally {
      closeSync(fd);
      if (!done) rmSync(tmp, { recursive: true, force: true }); // a half-written merge never lingers
    }
    try {
      publishDir(tmp, out, 'refuse'); // fsyncs the journal, renames the folder into place
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST')
        throw new InputError(`--out ${out} already exists; merge never overwrites a run folder`);
      throw err;
    }
    if (argv.json)
      process.stdout.write(
        `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, runDir: out, sources: files.length, cycles, forcedOverlap: forced })}\n`,
      );
    else
      process.stdout.write(
        visible(
          `merged ${files.length} runs (${cycles} cycles) into ${out}${forced.length > 0 ? ' (forced over an overlap: the same cycles may count twice)' : ''}\n`,
        ),
      );
    return EXIT.pass;
  },
});
