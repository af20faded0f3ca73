// `soak image build [--force] [--template [--scenario S]]`: build (or show the cached) guest image of the microvm target
// (and the template snapshot fresh sessions restore); `soak image agent --out DIR`: the static workload agent alone, for
// a user's own sandbox image; `soak image prune [--dry-run]`: remove the cache entries this checkout no longer uses.
import type { Argv } from 'yargs';
import { issueLine } from '../core/config-issues.js';
import { ConfigError, EXIT } from '../core/errors.js';
import { escapedJson, visible } from '../core/visible.js';
import { buildAgent } from '../targets/guest/agent-build.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildImage, cachedImage, recipeHash, vmImagesDir } from '../targets/guest/image.js';
import { removeEntries, staleCodingEntries, staleEntries } from '../targets/microvm/build-cache.js';
import { codingKey } from '../targets/guest/work-image.js';
import { fmtBytes } from '../report/text/format.js';
import { loadScenario } from '../scenario/scenario.js';
import { microvmTemplate } from '../targets/microvm/target.js';
import type { TemplateSnapshot } from '../targets/microvm/template.js';
import { defineCommand, type SoakCommand } from './command.js';
import { VERBS } from './verbs.js';
import { OUTPUT_SCHEMA_VERSION } from '../report/output-schemas.js';

interface ImageBuildArgs {
  force: boolean;
  json: boolean;
  template: boolean;
  scenario: string;
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
      .option('json', { type: 'boolean', default: false, describe: 'JSON output' })
      .option('template', {
        type: 'boolean',
        default: false,
        describe:
          "Also build the template snapshot fresh sessions restore (targetOptions fresh: template) for --scenario's guest",
      })
      .option('scenario', {
        type: 'string',
        default: 'fresh-template',
        describe: 'With --template: the scenario whose microvm guest (memory, disk, stepMs, accel) the template is for',
      }),
  run: async (argv) => {
    const started = process.hrtime.bigint();
    const image = await buildImage({ force: argv.force });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const template = argv.template ? await buildTemplate(argv.scenario) : undefined;
    if (argv.json) {
      const out = { schemaVersion: OUTPUT_SCHEMA_VERSION, ...image, buildMs: Math.round(ms), template };
      process.stdout.write(`${escapedJson(out, 2)}\n`);
      return EXIT.pass;
    }
    process.stdout.write(
      [
        `image ${image.hash}`,
        `  kernel     ${image.kernel} (${image.kernelPackage})`,
        `  initramfs  ${image.initramfs}`,
        `  ${image.cached === true ? 'cached (pass --force to rebuild)' : `built in ${(ms / 1000).toFixed(1)} s`}`,
        ...(template === undefined ? [] : templateLines(template)),
      ]
        .map(visible)
        .join('\n') + '\n',
    );
    return EXIT.pass;
  },
});

/** Build (or find cached) the template snapshot for `scenarioName`'s microvm guest, in a private scratch folder. */
async function buildTemplate(scenarioName: string): Promise<TemplateSnapshot> {
  const { scenario, file } = loadScenario(scenarioName);
  if (scenario.target !== 'microvm')
    throw new ConfigError(issueLine(file, { path: ['target'], message: '--template needs a microvm scenario' }));
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'soak-tpl-'));
  try {
    const options = { ...scenario.targetOptions, fresh: 'template' };
    return await microvmTemplate({ workDir, sessionDir: workDir, stepMs: scenario.stepMs, options });
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}

function templateLines(t: TemplateSnapshot): string[] {
  const mib = (t.ramBytes / 2 ** 20).toFixed(1);
  const how = t.cached === true ? 'cached' : `built in ${(t.buildMs / 1000).toFixed(1)} s`;
  return [`template ${t.key}`, `  folder     ${t.dir}`, `  RAM stream ${mib} MiB${t.disk ? ' + disk' : ''}; ${how}`];
}

const pruneCommand = defineCommand<{ 'dry-run': boolean }>({
  command: 'prune',
  describe:
    'Remove vm-images/build/ entries this checkout no longer uses (other recipes, older or other-image templates, coding workload images of another recipe, builds left behind)',
  builder: (y: Argv) =>
    y.option('dry-run', { type: 'boolean', default: false, describe: 'List what would be removed; remove nothing' }),
  run: async (argv) => {
    const buildDir = path.join(vmImagesDir(), 'build');
    const image = cachedImage();
    const current = { recipeHash: recipeHash(), ...(image ? { image } : {}) };
    const stale = staleEntries(buildDir, current);
    if (image) stale.push(...staleCodingEntries(path.dirname(image.initramfs), await codingKey(image)));
    if (!argv['dry-run']) removeEntries(buildDir, stale);
    const verb = argv['dry-run'] ? 'would remove' : 'removed';
    const width = Math.max(0, ...stale.map((e) => e.name.length));
    const total = stale.reduce((s, e) => s + e.bytes, 0);
    process.stdout.write(
      [
        ...stale.map((e) => `${verb} ${e.name.padEnd(width)}  ${fmtBytes(e.bytes).padStart(9)}  ${e.why}`),
        `${buildDir}: ${verb} ${stale.length} entries, ${fmtBytes(total)}${image ? `; current image ${image.hash.slice(0, 16)}` : '; no current image built'}`,
      ]
        .map(visible)
        .join('\n') + '\n',
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
      visible(
        `${agent.file} (${agent.bytes} bytes, sha256 ${agent.sha256}, sources ${agent.sourceHash.slice(0, 16)})\n` +
          '  run it as: soak-agent <workspace> <stepMs> -   (heartbeats on stdout, requests on stdin; docs/workload.md)\n',
      ),
    );
    return EXIT.pass;
  },
});

export const imageCommand: SoakCommand = {
  command: VERBS.image.command,
  describe: VERBS.image.describe,
  subcommands: [buildCommand, pruneCommand, agentCommand],
};
