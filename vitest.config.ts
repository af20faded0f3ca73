import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './test/helpers/slow-first.js';

// Integration tests spawn real processes and QEMU guests: give them room and run files one at a time per core.
// One process per worker keeps its loaded modules from file to file (isolate: false): loading the harness anew for
// each of ~140 files cost more than the tests of many of them. Tests restore any environment variable they set.
// The slowest files start first (test/helpers/slow-first.ts), so neither worker ends on a long file alone.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    isolate: false,
    sequence: { sequencer: SlowFirstSequencer },
    // one folder per test session for the soak runs the e2e cli-<verb> files share (test/helpers/cli-runs.ts)
    globalSetup: ['test/helpers/cli-runs-setup.ts'],
  },
});
