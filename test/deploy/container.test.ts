// Cheap static checks of the image recipe (the build itself takes minutes and a root shell: deploy/container/build.sh):
// the scripts parse, the Containerfile copies only what build.sh stages, and its entry point is the nightly pipeline.
import { accessSync, constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const dir = path.join(repoRoot, 'deploy', 'container');
const containerfile = readFileSync(path.join(dir, 'Containerfile'), 'utf8');
const build = readFileSync(path.join(dir, 'build.sh'), 'utf8');

/** The sources of every COPY and ADD in the Containerfile (the last word is the destination). */
function copiedSources(text: string): string[] {
  return [...text.matchAll(/^(?:COPY|ADD)\s+(.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/).slice(0, -1));
}

describe('deploy/container', () => {
  it('build.sh and nightly.sh parse (bash -n) and are executable', async () => {
    for (const f of [path.join(dir, 'build.sh'), path.join(repoRoot, 'deploy', 'nightly', 'nightly.sh')]) {
      const r = await execa('bash', ['-n', f], { reject: false });
      expect(r.exitCode, `${f}: ${r.stderr}`).toBe(0);
      accessSync(f, constants.X_OK);
    }
  });

  it('copies only what build.sh stages into the context, and starts the nightly pipeline', () => {
    expect(copiedSources(containerfile).sort()).toEqual(['app/', 'nodejs.tar']);
    expect(build).toMatch(/"\$ctx\/app\/"/);
    expect(build).toMatch(/"\$ctx\/nodejs\.tar"/);
    expect(build).toMatch(/npm pack --ignore-scripts/); // the app is the package: what package.json "files" ships
    expect(build).toMatch(/tar -xzf "\$work\/\$tgz" -C "\$ctx\/app"/);
    expect(containerfile).toMatch(/^ENTRYPOINT \["\/opt\/keepstate-soak\/deploy\/nightly\/nightly\.sh"\]$/m);
  });

  it('builds FROM the local debootstrap base, and documents the registry FROM line', () => {
    expect(containerfile).toMatch(/^ARG BASE=localhost\/keepstate-soak-base:bookworm$/m);
    expect(containerfile).toMatch(/^FROM \$\{BASE\}$/m);
    expect(containerfile).toMatch(/^#\s+FROM debian:bookworm-slim$/m);
    expect(containerfile.replace(/^#.*$/gm, '')).not.toMatch(/chromium/i); // no browser installed
  });

  it('negative control: a COPY of a file build.sh does not stage is seen', () => {
    const planted = containerfile.replace('ADD nodejs.tar /', 'COPY node_modules/ /opt/x/\nADD nodejs.tar /');
    expect(copiedSources(planted).sort()).not.toEqual(['app/', 'nodejs.tar']);
  });
});
