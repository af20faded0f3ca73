// `soak merge <run-dir...> --out DIR`: combine shards or nights into one run folder (journal only) for report and gates.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { InputError } from '../core/errors.js';
import { streamJournal } from '../journal/writer.js';
import { fsyncDir } from '../core/durable.js';
import { mergeEvent, mergeInput, planMerge } from '../journal/merge.js';
import { JOURNAL_FILE, resolveRunDir } from '../analysis/load-runs.js';

interface MergeArgs {
  runDirs: string[];
  out: string;
  json: boolean;
}

export const mergeCommand: CommandModule<object, MergeArgs> = {
  command: 'merge <run-dirs..>',
  describe:
    'Combine run folders (shards of one soak, or several nights) into one run folder; its statistics equal one run over the union',
  builder: (y: Argv) =>
    y
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders to combine' })
      .option('out', { type: 'string', demandOption: true, describe: 'New run folder to create (must not exist)' })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }) as unknown as Argv<MergeArgs>,
  handler: (argv: ArgumentsCamelCase<MergeArgs>) => {
    const out = path.resolve(argv.out);
    if (existsSync(out)) throw new InputError(`--out ${out} already exists; merge never overwrites a run folder`);
    const files = argv.runDirs.map((d) => path.join(resolveRunDir(d), JOURNAL_FILE));
    // Pass 1: each source's run-start and cycle ids (the plan). Pass 2: stream every event into the new journal.
    const inputs = files.map((source) => mergeInput(source, (onEvent) => streamJournal(source, onEvent)));
    const plan = planMerge(inputs, path.basename(out));
    const tmp = `${out}.merging-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    let cycles = 0;
    const fd = openSync(path.join(tmp, JOURNAL_FILE), 'w', 0o644);
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
            writeSync(fd, piece);
            piece = '';
          }
        });
      });
      writeSync(fd, piece);
      fsyncSync(fd);
      done = true;
    } finally {
      closeSync(fd);
      if (!done) rmSync(tmp, { recursive: true, force: true }); // a half-written merge never lingers
    }
    fsyncDir(tmp);
    renameSync(tmp, out);
    fsyncDir(path.dirname(out));
    if (argv.json) process.stdout.write(`${JSON.stringify({ runDir: out, sources: files.length, cycles })}\n`);
    else process.stdout.write(`merged ${files.length} runs (${cycles} cycles) into ${out}\n`);
  },
};
