// Hand-made journal events for the analysis and gate tests: the test machine's environment and a run-start on it.
import type { Environment } from '../../harness/core/environment.js';
import type { EventInput, JournalEvent } from '../../harness/journal/events.js';
import { loadScenario, type Scenario } from '../../harness/scenario/scenario.js';

/** The environment every hand-made run-start records: a 2-core Linux test machine, process target. */
export const testEnvironment: Environment = {
  os: 'Linux',
  arch: 'x64',
  cpuModel: 'test',
  cores: 2,
  memoryGiB: 4,
  kernel: 'k',
  node: 'v20',
  harnessVersion: '0.1.0',
  gitCommit: 'abc',
  target: { kind: 'process' },
};

/** A journal event (schema version 1) at time `t`. */
export const journalEvent = (e: EventInput, t = 0): JournalEvent => ({ schemaVersion: 1, t, ...e });

/** The run-start of run `runId` of `scenario` on testEnvironment, started 2026-03-04T05:06:07Z, at time `t`. */
export const runStartEvent = (scenario: Scenario, runId: string, t = 0): JournalEvent =>
  journalEvent(
    { type: 'run-start', runId, startedAt: '2026-03-04T05:06:07.000Z', scenario, environment: testEnvironment },
    t,
  );

/** The NDJSON line of a run-start of the default scenario, for a journal a test writes by hand (it must come first). */
export const runStartLine = (): string =>
  `${JSON.stringify(runStartEvent(loadScenario('default').scenario, 'hand-made'))}\n`;
