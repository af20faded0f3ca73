// A damaged journal (journal/protocol.ts) analysed on several threads is refused exactly as on one thread: the same
// JournalDamagedError, naming the same first line and count, whichever range holds the error and the line it clashes
// with, on the fast path and through JSON.parse. Worker threads run compiled code: this test loads dist/ (build first).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fixtureText, outcomeOf, scratchRunFolders } from '../helpers/journals.js';
import { repoRoot } from '../helpers/paths.js';
import { containing } from '../helpers/match.js';

const dist = path.join(repoRoot, 'dist', 'harness');
if (!existsSync(path.join(dist, 'analysis', 'worker.js'))) throw new Error(`${dist} is missing: build first`);
const { loadRuns } = (await import(
  pathToFileURL(path.join(dist, 'analysis', 'load-runs.js')).href
)) as typeof import('../../harness/analysis/load-runs.js');

const runFolder = scratchRunFolders('soak-parallel-protocol-');
const lines = fixtureText('process-torn-checkpoint').trimEnd().split('\n'); // 172 lines, 20 cycles
const cycleLine = (cycle: number): number =>
  lines.findIndex((l) => l.includes('"type":"cycle"') && l.includes(`"cycle":${cycle},`));
const journal = (edited: string[]): string => `${edited.join('\n')}\n`;

const cases: [string, string[], string][] = [
  [
    "cycle 2's outcome again near the end (the two in different ranges)",
    [...lines.slice(0, -1), lines[cycleLine(2)]!.replace(/"t":[0-9.]+/, `"t":1000000000`), lines.at(-1)!],
    `line ${lines.length}: cycle-repeated`,
  ],
  [
    'a cycle after run-end',
    [...lines, lines[cycleLine(20)]!.replace('"cycle":20,', '"cycle":21,').replace(/"t":[0-9.]+/, `"t":1000000000`)],
    `line ${lines.length + 1}: after-run-end`,
  ],
  [
    'a time going back in the middle',
    lines.map((l, i) => (i === 90 ? l.replace(/"t":[0-9.]+/, '"t":1') : l)),
    'line 91: time-backwards',
  ],
  [
    'an event before run-start',
    ['{"schemaVersion":1,"t":0,"type":"cycle-start","cycle":1,"phase":"work"}', ...lines],
    'line 1: before-run-start',
  ],
];

describe('a damaged journal on several threads = on one thread', () => {
  it.each(cases)('%s', async (_what, edited, first) => {
    const dir = runFolder(journal(edited));
    const options = [{ threads: 1 }, ...[2, 3, 4].map((threads) => ({ threads, parallelFromBytes: 0 }))];
    const [one, ...split] = await Promise.all([
      ...options.map((o) => outcomeOf(() => loadRuns([dir], o))),
      outcomeOf(() => loadRuns([dir], { threads: 3, parallelFromBytes: 0, fastPath: false })),
    ]);
    expect(one).toMatchObject({ error: 'JournalDamagedError', message: containing(`is damaged: ${first}`) });
    for (const s of split) expect(s).toEqual(one);
  });
});
