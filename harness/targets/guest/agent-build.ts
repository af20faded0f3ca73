// The workload agent as a standalone artifact (`soak image agent`): vm-images/agent compiled static with gcc, so a user
// drops one binary into their own sandbox image (docs/workload.md: its arguments and heartbeat format).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { publishFile, tempPathFor } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { vmImagesDir } from './image.js';
import { loadExeca } from './lazy-execa.js';

/** The agent's C sources, in link order. */
export const AGENT_SOURCES = ['agent.c', 'tool.c', 'sha256.c', 'effects.c'] as const;

/** What was built: the binary, its size and sha256, and the recipe (sha256 of the sources). */
export interface BuiltAgent {
  file: string;
  bytes: number;
  sha256: string;
  sourceHash: string;
}

/** Compile the static agent into `outDir/soak-agent` (written under an unguessable temp name, then published). */
export async function buildAgent(outDir: string): Promise<BuiltAgent> {
  const execa = await loadExeca();
  const src = path.join(vmImagesDir(), 'agent');
  const recipe = createHash('sha256');
  for (const f of [...AGENT_SOURCES, 'sha256.h', 'tool.h', 'effects.h']) recipe.update(readFileSync(path.join(src, f)));
  mkdirSync(outDir, { recursive: true });
  const file = path.join(outDir, 'soak-agent');
  const tmp = tempPathFor(file); // nothing can be planted at the compiler's output path
  const args = ['-O2', '-static', '-Wall', '-Wextra', '-o', tmp, ...AGENT_SOURCES.map((f) => path.join(src, f))];
  const r = await execa('gcc', args, { reject: false, timeout: 120_000 });
  if (r.exitCode !== 0) {
    rmSync(tmp, { force: true });
    throw new TargetError(
      `gcc could not build the agent (install the Debian packages gcc libc6-dev): ${String(r.stderr || r.message).split('\n')[0]}`,
    );
  }
  publishFile(tmp, file);
  const bytes = readFileSync(file);
  return {
    file,
    bytes: statSync(file).size,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    sourceHash: recipe.digest('hex'),
  };
}
