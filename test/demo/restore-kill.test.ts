// The demo's interruption is the soak's (run/interruption.ts), with kills from outside: a person who SIGKILLs the
// session, then SIGKILLs the host restoring it, gets one interruption with two kills (the second journaled with phase
// restore, restoreKills 1), resumed by the next restore and verified. Without the outside-kill rule the second death
// would end the cycle indeterminate (host-exited). Real hosts of the built harness (loaded from dist/); each restore
// is held 1.5 s (injectRestoreDelayMs) so the second kill lands inside one, seen on the page state's timeline.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { CycleEvent, JournalEvent } from '../../harness/journal/events.js';
import { parseScenario } from '../../harness/scenario/scenario.js';
import { repoRoot } from '../helpers/paths.js';

const dist = path.join(repoRoot, 'dist', 'harness');
if (!existsSync(path.join(dist, 'run', 'interruption.js')))
  throw new Error(`${dist}/run/interruption.js is missing: build first (npm run build or npm test)`);
const { DemoSession } = (await import(
  pathToFileURL(path.join(dist, 'demo', 'session.js')).href
)) as typeof import('../../harness/demo/session.js');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-demo-restore-kill-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Resolves with `probe()`'s first truthy answer (polled); rejects after `ms` naming `what`. */
async function until<T>(what: string, probe: () => T | null | undefined | false, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the demo: a person kills the restoring host too', () => {
  it('one interruption, two kills (the second in the restore), resumed and verified', async () => {
    const scenario = parseScenario(
      'name: demo-restore-kill\ntarget: process\ncheckpoint: { everyMs: 100 }\ninjectRestoreDelayMs: 1500\nresumeTimeoutMs: 60000\n',
      path.join(tmp, 'demo-restore-kill.yaml'),
    );
    const demo = await DemoSession.start({ scenario, runsDir: tmp, logLevel: 'silent' });
    try {
      await demo.settled();
      await until('a committed checkpoint', () => demo.state.checkpoint);
      const first = demo.state.pid!;
      expect(demo.killNow()).toBe(true);
      const restoring = (): string[] =>
        demo.state
          .snapshot()
          .timeline.filter((e) => e.text.startsWith('restoring checkpoint'))
          .map((e) => e.text);
      await until('the first restore to begin', () => restoring().length === 1 && demo.state.pid !== first);
      const second = demo.state.pid!;
      process.kill(-second, 'SIGKILL'); // as a person would: kill -9 -- -<pid> of the host restoring
      await until('the interruption to be judged', () => demo.state.last, 120_000);
      expect(demo.state.pid).not.toBe(second);
      expect(restoring()).toHaveLength(2);
    } finally {
      await demo.stop();
    }
    const events = readFileSync(path.join(demo.paths.journal), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as JournalEvent);
    const kills = events.filter((e) => e.type === 'kill');
    expect(kills.map((k) => [k.cycle, k.phase])).toEqual([
      [1, expect.stringMatching(/^(work|checkpoint)$/)],
      [1, 'restore'],
    ]);
    const [cycle] = events.filter((e): e is CycleEvent => e.type === 'cycle');
    expect(cycle).toMatchObject({ cycle: 1, outcome: 'ok', observedPhase: 'restore', restoreKills: 1 });
    const modes = events.flatMap((e) => (e.type === 'host-start' ? [e.mode] : []));
    expect(modes).toEqual(['boot', 'restore', 'restore']);
  }, 240_000);
});
