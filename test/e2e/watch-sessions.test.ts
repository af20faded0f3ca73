// `soak watch` on a live run of 3 sessions at once (issue 36): while the real runner writes its journal, the page's
// snapshots (read over its real /events stream) count the run's cycles against cycles x sessions (never "9 of 3"),
// and show each session's own progress against its plan; once the run ends, every session shows all its cycles, and
// the page in Chromium (when installed) draws a row per session.
// Timed from what the journal and the page say, never from a sleep.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execaNode, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WatchSnapshot } from '../../harness/watch/snapshot.js';
import { describeResult } from '../helpers/cli.js';
import { journalSoFar, untilWhileRunning } from '../helpers/live-soak.js';
import { cliPath } from '../helpers/paths.js';
import { chromiumPresent, launchChromium } from '../helpers/chromium.js';
import { readEvents } from '../helpers/raw-http.js';

const SESSIONS = 3;
const CYCLES = 6;
let tmp: string;
const children: ResultPromise[] = [];

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-watch-sessions-'));
});
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(tmp, { recursive: true, force: true });
});

const start = (args: string[]): ResultPromise => {
  const child = execaNode(cliPath, args, {
    cwd: tmp,
    reject: false,
    stdin: 'ignore',
    env: { CI: '1' },
    timeout: 600_000,
  });
  children.push(child);
  return child;
};

describe(`soak watch on a live run of ${SESSIONS} sessions`, () => {
  it("counts against cycles x sessions and shows each session's progress, live and at the end", async () => {
    const runs = path.join(tmp, 'runs');
    const runner = start([
      'run',
      '--sessions',
      `${SESSIONS}`,
      '--cycles',
      `${CYCLES}`,
      '--boot-samples',
      '0',
      '--no-report',
      '--out',
      runs,
    ]);
    const runDir = (): string => path.join(runs, readdirSync(runs).find((d) => d !== 'latest') ?? 'none');
    const started = (): boolean => {
      try {
        return journalSoFar(runDir()).some((e) => e.type === 'cycle-start');
      } catch {
        return false; // runs/ not made yet
      }
    };
    await untilWhileRunning(started, runner, 'the first cycle starts');
    const watch = start(['watch', runDir()]);
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      watch.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /^open: (\S+)$/m.exec(out);
        if (m) resolve(m[1]!);
      });
      void watch.then((r) => reject(new Error(`soak watch ended before printing a URL\n${describeResult(r)}`)));
    });
    const events = readEvents(url);
    /** The next snapshot that holds `pred` (readEvents gives up after 60 s: asked again while the runner runs). */
    const until = async (pred: (s: WatchSnapshot) => boolean): Promise<WatchSnapshot> => {
      for (;;) {
        try {
          return await events.until<WatchSnapshot>(pred);
        } catch (err) {
          if (runner.exitCode !== null) throw err;
        }
      }
    };
    try {
      const live = await until((s) => s.status.startsWith('running') && s.cycles.done >= 1);
      expect(live.cycles.planned).toBe(SESSIONS * CYCLES);
      expect(live.cycles.done).toBeLessThanOrEqual(SESSIONS * CYCLES);
      expect(live.sessions.map((s) => [s.session, s.planned])).toEqual([
        [0, CYCLES],
        [1, CYCLES],
        [2, CYCLES],
      ]);
      expect(live.sessions.reduce((n, s) => n + s.done, 0)).toBe(live.cycles.done);
      const ran = await runner;
      const ended = await until((s) => !s.status.startsWith('running'));
      expect(ended.status, describeResult(ran)).toBe('complete');
      expect(ended.cycles).toMatchObject({ done: SESSIONS * CYCLES, planned: SESSIONS * CYCLES });
      expect(ended.sessions.map((s) => s.done)).toEqual([CYCLES, CYCLES, CYCLES]);
      if (chromiumPresent) {
        // the page draws one row per session from the same snapshot (its text set element by element)
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          await page.goto(url);
          await page
            .locator('#sessions tr')
            .nth(SESSIONS - 1)
            .waitFor({ timeout: 60_000 });
          const rows = await page.locator('#sessions tr').allInnerTexts();
          expect(rows.map((r) => r.split('\t').slice(0, 2).join(' '))).toEqual(
            [0, 1, 2].map((i) => `${i} ${CYCLES} of ${CYCLES}`),
          );
          expect(await page.locator('#c-done').textContent()).toBe(
            `${SESSIONS * CYCLES} of ${SESSIONS * CYCLES} (${SESSIONS} sessions)`,
          );
        } finally {
          await browser.close();
        }
      }
    } finally {
      events.close();
      watch.kill('SIGTERM');
    }
    expect((await watch).exitCode).toBe(0);
  }, 600_000);
});
