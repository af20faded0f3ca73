// `soak gates <run-dir...>`: judge one run (or several as one sample) against the numbered gates.
import type { Argv } from 'yargs';
import { exitCodeFor } from '../gates/evaluate.js';
import { formatGateTable, tableWidth, wrapText } from '../report/text/gate-table.js';
import { strictTiming, strictTimingOption } from './strict-timing.js';
import { loadRuns, noteTornTails } from '../analysis/load-runs.js';
import { defineCommand } from './command.js';
import { VERBS } from './verbs.js';
import { ciOutputOptions, writeCiOutputs } from './ci-outputs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';
import { judge, verdictLine } from '../gates/judge.js';
import { escapedJson, visible } from '../core/visible.js';

interface GatesArgs {
  runDirs: string[];
  gatesDir?: string;
  json: boolean;
  junit?: string;
  summaryMd?: string;
  strictTiming?: boolean;
}

export const gatesCommand = defineCommand<GatesArgs>({
  command: VERBS.gates.command,
  describe: VERBS.gates.describe,
  builder: (y: Argv) =>
    ciOutputOptions(strictTimingOption(y))
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
    const strict = strictTiming(argv.strictTiming);
    const { analysis, dirs } = noteTornTails(await loadRuns(argv.runDirs));
    const j = judge(analysis, { gatesDir: argv.gatesDir, strictTiming: strict });
    writeCiOutputs(argv, { analysis, judgement: j, reportDir: null });
    if (argv.json) {
      process.stdout.write(
        `${escapedJson({ schemaVersion: OUTPUT_SCHEMA_VERSION, runDirs: dirs, verdict: j.verdict, gates: j.gates, timing: j.timing }, 2)}\n`,
      );
    } else {
      const width = tableWidth(process.stdout);
      const warning = j.timing.warning === null ? [] : wrapText(`warning: ${j.timing.warning}`, width);
      process.stdout.write(visible(`${[formatGateTable(j.gates, width), ...warning, verdictLine(j)].join('\n')}\n`));
    }
    return exitCodeFor(j.verdict);
  },
});
