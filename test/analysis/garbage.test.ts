// Every journal line is checked against its event's schema on both paths: valid-JSON garbage is an IntegrityError
// (exit 1) naming file, line and field, word for word the same with and without the fast path; never a crash (exit 4)
// and never a silent sample. A torn last line is still dropped.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../harness/analysis/load-runs.js';
import { EXIT, IntegrityError } from '../../harness/core/errors.js';
import { outcomeOf, scratchRunFolders } from '../helpers/journals.js';
import { GARBAGE_CASES, GARBAGE_JOURNAL, linesOfType, withLineChanged } from './garbage-cases.js';

const runFolder = scratchRunFolders('soak-garbage-');
const outcome = (dir: string, fastPath: boolean): Promise<unknown> => outcomeOf(() => loadRuns([dir], { fastPath }));

describe('valid-JSON garbage is named by file, line and field, on the fast and the JSON.parse path', () => {
  for (const c of GARBAGE_CASES) {
    const lines = linesOfType(GARBAGE_JOURNAL, c.type);
    it.each([lines[0]!, lines.at(-1)!])(`${c.what}, line %i`, async (n) => {
      const dir = runFolder(withLineChanged(GARBAGE_JOURNAL, n, c.change));
      const expected = {
        error: 'JournalLineError',
        message: `journal ${path.join(dir, 'journal.ndjson')} line ${n}: ${c.problem}`,
      };
      expect(await outcome(dir, true)).toEqual(expected);
      expect(await outcome(dir, false)).toEqual(expected);
    });
  }

  it('the error is an IntegrityError: exit code 1, not 4', async () => {
    const n = linesOfType(GARBAGE_JOURNAL, 'cycle')[0]!;
    const dir = runFolder(withLineChanged(GARBAGE_JOURNAL, n, GARBAGE_CASES[0]!.change));
    const err = await loadRuns([dir]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(IntegrityError);
    expect((err as IntegrityError).exitCode).toBe(EXIT.fail);
  });

  it('every problem of a line is named, not only the first', async () => {
    const n = linesOfType(GARBAGE_JOURNAL, 'cycle')[1]!;
    const twice = (l: string): string => GARBAGE_CASES[5]!.change(GARBAGE_CASES[6]!.change(l));
    const message = (
      (await outcome(runFolder(withLineChanged(GARBAGE_JOURNAL, n, twice)), true)) as { message: string }
    ).message;
    expect(message).toContain(`line ${n}: cycle.outcome: expected one of ok, fail, indeterminate, got "banana"; `);
    expect(message).toContain('cycle.downtimeMs: expected a finite number >= 0 or null, got -3');
  });

  it('an unknown event type is named', async () => {
    const n = linesOfType(GARBAGE_JOURNAL, 'restore')[0]!;
    const dir = runFolder(withLineChanged(GARBAGE_JOURNAL, n, (l) => l.replace('"type":"restore"', '"type":"banana"')));
    expect(await outcome(dir, true)).toMatchObject({
      error: 'JournalLineError',
      message: expect.stringContaining(`line ${n}: type: expected one of run-start, run-resume,`) as unknown,
    });
  });

  it('a torn last line is still dropped, whatever its fields hold', async () => {
    const lines = linesOfType(GARBAGE_JOURNAL, 'cycle');
    const last = lines.at(-1)!;
    const text = withLineChanged(GARBAGE_JOURNAL, last, GARBAGE_CASES[5]!.change);
    const torn = text.slice(0, text.lastIndexOf('"outcome"') + 20); // cut inside the bad line: no newline after it
    const dir = runFolder(torn);
    const fast = await loadRuns([dir]);
    expect(fast.tornTails).toEqual([path.join(dir, 'journal.ndjson')]);
    expect(fast).toEqual(await loadRuns([dir], { fastPath: false }));
  });
});
