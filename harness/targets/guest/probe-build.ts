// The guest-state probe (vm-images/agent/probe.c) as one static binary, compiled with gcc on first use and cached by
// the hash of its sources (native/build/soak-probe-<hash>), so every target runs the same code (docs/what-survives.md).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { publishFile, tempPathFor } from '../../core/durable.js';
import { TargetError } from '../../core/errors.js';
import { runTool } from '../../core/native-build.js';
import { repoRoot } from '../../core/repo-root.js';

/** The probe's C sources (the header only hashed). */
export const PROBE_SOURCES = ['probe.c', 'probe-examine.c', 'probe.h'] as const;

/** The probe binary for the current sources, built (static, gcc) when it is not yet. */
export async function buildProbe(): Promise<string> {
  const src = path.join(repoRoot(), 'vm-images', 'agent');
  const h = createHash('sha256');
  for (const f of PROBE_SOURCES) h.update(readFileSync(path.join(src, f)));
  const bin = path.join(repoRoot(), 'native', 'build', `soak-probe-${h.digest('hex').slice(0, 12)}`);
  if (existsSync(bin)) return bin;
  mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = tempPathFor(bin); // unguessable: nothing can be planted at the compiler's output path
  const cs = PROBE_SOURCES.filter((f) => f.endsWith('.c')).map((f) => path.join(src, f));
  try {
    await runTool('gcc', ['-O2', '-static', '-Wall', '-Wextra', '-o', tmp, ...cs]);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw new TargetError(
      `gcc could not build the probe (install the Debian packages gcc libc6-dev): ${(err as Error).message}`,
    );
  }
  publishFile(tmp, bin);
  return bin;
}
