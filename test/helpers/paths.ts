// Where the repository, its built output and the test fixtures are, whatever folder a test file sits in.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A path under test/fixtures/. */
export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test', 'fixtures', ...parts);
}

/** The built CLI (npm run build). */
export const cliPath = path.join(repoRoot, 'dist', 'harness', 'cli.js');
