// `soak image build [--force]`: build (or show the cached) guest image of the microvm target.
import type { ArgumentsCamelCase, Argv, CommandModule } from 'yargs';
import { buildImage } from '../targets/guest/image.js';

interface ImageBuildArgs {
  force: boolean;
  json: boolean;
}

const buildCommand: CommandModule<object, ImageBuildArgs> = {
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
  handler: async (argv: ArgumentsCamelCase<ImageBuildArgs>) => {
    const started = process.hrtime.bigint();
    const image = await buildImage({ force: argv.force });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ schemaVersion: 1, ...image, buildMs: Math.round(ms) }, null, 2)}\n`);
      return;
    }
    process.stdout.write(
      [
        `image ${image.hash}`,
        `  kernel     ${image.kernel} (${image.kernelPackage})`,
        `  initramfs  ${image.initramfs}`,
        `  ${image.cached === true ? 'cached (pass --force to rebuild)' : `built in ${(ms / 1000).toFixed(1)} s`}`,
      ].join('\n') + '\n',
    );
  },
};

export const imageCommand: CommandModule = {
  command: 'image <command>',
  describe: 'Guest image of the microvm target: build',
  builder: (y: Argv) => y.command(buildCommand as unknown as CommandModule).demandCommand(1),
  handler: () => {},
};
