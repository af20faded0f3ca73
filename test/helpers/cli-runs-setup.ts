// vitest globalSetup: one empty folder for the whole test session, where the e2e CLI files share their soak runs
// (test/helpers/cli-runs.ts makes them on first use), removed when the session ends.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The test session's folder for the shared CLI runs. */
    cliRunsDir: string;
  }
}

/** Make the folder and hand it to the test files; the returned teardown removes it. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-e2e-cli-runs-'));
  project.provide('cliRunsDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
