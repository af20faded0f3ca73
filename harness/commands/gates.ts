// `soak gates <run-dir...>`: judge one run (or several as one sample) against the numbered gates.
import type { Argv } from 'yargs';
import { exitCodeFor } from '../gates/evaluate.js';
import { formatGateTable } from '../report/text/gate-table.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { defineCommand } from './command.js';
import { judge, verdictLine } from '../gates/judge.js';
import { neutralizeBidi } from '../report/escape.js';

interface GatesArgs {
  runDirs: string[];
  gatesDir?: string;
  json: boolean;
}

export const gatesCommand = defineCommand<GatesArgs>({
  command: 'gates <run-dirs..>',
  describe:
    'Judge run folders against gates/NN-*.yaml; exit 0 all pass, 1 any fail, 2 any inconclusive or insufficient data, 3 bad input',
  builder: (y: Argv) =>
    y
      .positional('run-dirs', {
        type: 'string',
        array: true,
        describe: 'Run folders (several are judged as one sample)',
      })
      .option('gates-dir', { type: 'string', describe: 'Folder of gate files (default: gates/ of the harness)' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print the gate results as JSON',
      }) as unknown as Argv<GatesArgs>,
  run: async (argv) => {
    const { analysis, dirs } = noteTornTails(await loadRuns(argv.runDirs));
    const j = judge(analysis, argv.gatesDir);
    if (argv.json) {
      process.stdout.write(
        `${JSON.stringify({ schemaVersion: 1, runDirs: dirs, verdict: j.verdict, gates: j.gates }, null, 2)}\n`,
      );
    } else {
      process.stdout.write(neutralizeBidi(`${formatGateTable(j.gates)}\n${verdictLine(j)}\n`));
    }
    return exitCodeFor(j.verdict);
  },
});
