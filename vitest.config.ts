import { defineConfig } from 'vitest/config';

// Integration tests spawn real processes and QEMU guests: give them room and run files one at a time per core.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
  },
});
