// `soak merge <run-dir...> --out DIR`: combine shards or nights into one run folder (journal only) for report and gates.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { InputError } from '../errors.js';
import { readJournal } from '../journal.js';
import { writeFileAtomic } from '../store/fsync.js';
import { mergeJournals } from '../merge.js';
import { JOURNAL_FILE, resolveRunDir } from '../run-dir.js';

interface MergeArgs {
  runDirs: string[];
  out: string;
  json: boolean;
}

export const mergeCommand: CommandModule<object, MergeArgs> = {
  command: 'merge <run-dirs..>',
  describe: 'Combine run folders (shards of one soak, or several nights) into one run folder; its statistics equal one run over the union',
  builder: (y: Argv) =>
    y
      .positional('run-dirs', { type: 'string', array: true, describe: 'Run folders to combine' })
      .option('out', { type: 'string', demandOption: true, describe: 'New run folder to create (must not exist)' })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }) as unknown as Argv<MergeArgs>,
  handler: (argv: ArgumentsCamelCase<MergeArgs>) => {
    const out = path.resolve(argv.out);
    if (existsSync(out)) throw new InputError(`--out ${out} already exists; merge never overwrites a run folder`);
    const sources = argv.runDirs.map((d) => {
      const file = path.join(resolveRunDir(d), JOURNAL_FILE);
      return { events: readJournal(file).events, source: file };
    });
    const merged = mergeJournals(sources, path.basename(out));
    const tmp = `${out}.merging-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    mkdirSync(tmp, { recursive: true });
    // Events keep their original schemaVersion and times; one write, one fsync.
    writeFileAtomic(path.join(tmp, JOURNAL_FILE), merged.map((e) => `${JSON.stringify(e)}\n`).join(''));
    renameSync(tmp, out);
    const cycles = merged.filter((e) => e.type === 'cycle').length;
    if (argv.json) process.stdout.write(`${JSON.stringify({ runDir: out, sources: sources.length, cycles })}\n`);
    else process.stdout.write(`merged ${sources.length} runs (${cycles} cycles) into ${out}\n`);
  },
};
