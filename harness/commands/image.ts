// `soak image build [--force]`: build (or show the cached) guest image of the microvm target; `soak image agent --out
// DIR`: the static workload agent alone, for a user's own sandbox image.
import type { Argv } from 'yargs';
import { EXIT } from '../core/errors.js';
import { buildAgent } from '../targets/guest/agent-build.js';
import { buildImage } from '../targets/guest/image.js';
import { defineCommand, type SoakCommand } from './command.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';

interface ImageBuildArgs {
  force: boolean;
  json: boolean;
}

const buildCommand = defineCommand<ImageBuildArgs>({
  command: 'build',
  describe: 'Build the micro-VM guest image (Debian cloud kernel + busybox initramfs + agent), cached by recipe hash',
  builder: (y: Argv) =>
    y
      .option('force', {
        type: 'boolean',
        default: false,
        describe: 'Rebuild even if the cached image matches the recipe',
      })
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' }),
  run: async (argv) => {
    const started = process.hrtime.bigint();
    const image = await buildImage({ force: argv.force });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (argv.json) {
      process.stdout.write(
        `${JSON.stringify({ schemaVersion: OUTPUT_SCHEMA_VERSION, ...image, buildMs: Math.round(ms) }, null, 2)}\n`,
      );
      return EXIT.pass;
    }
    process.stdout.write(
      [
        `image ${image.hash}`,
        `  kernel     ${image.kernel} (${image.kernelPackage})`,
        `  initramfs  ${image.initramfs}`,
        `  ${image.cached === true ? 'cached (pass --force to rebuild)' : `built in ${(ms / 1000).toFixed(1)} s`}`,
      ].join('\n') + '\n',
    );
    return EXIT.pass;
  },
});

const agentCommand = defineCommand<{ out: string }>({
  command: 'agent',
  describe: 'Build the static workload agent (one binary, docs/workload.md) to drop into your own sandbox image',
  builder: (y: Argv) =>
    y.option('out', { type: 'string', demandOption: true, describe: 'Folder to write soak-agent into' }),
  run: async (argv) => {
    const agent = await buildAgent(argv.out);
    process.stdout.write(
      `${agent.file} (${agent.bytes} bytes, sha256 ${agent.sha256}, sources ${agent.sourceHash.slice(0, 16)})\n` +
        '  run it as: soak-agent <workspace> <stepMs> -   (heartbeats on stdout, requests on stdin; docs/workload.md)\n',
    );
    return EXIT.pass;
  },
});

export const imageCommand: SoakCommand = {
  command: VERBS.image.command,
  describe: VERBS.image.describe,
  subcommands: [buildCommand, agentCommand],
};
