// The report says what judging the cycles again from their journaled observations found, in summary.md and on the page.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findings } from '../../harness/report/findings.js';
import { writeReport } from '../../harness/report/write.js';
import type { RunAnalysis } from '../../harness/analysis/summary.js';
import { makeAnalysis, makeGates } from './fixtures.js';

function withRecheck(recheck: RunAnalysis['summary']['recheck']): RunAnalysis {
  const a = makeAnalysis();
  return { ...a, summary: { ...a.summary, recheck } };
}

let reportsDir: string;
beforeEach(async () => {
  reportsDir = await mkdtemp(path.join(os.tmpdir(), 'soak-recheck-'));
});
afterEach(() => rm(reportsDir, { recursive: true, force: true }));

describe('the re-check finding', () => {
  it('negative control: a summary from before re-checks says nothing about them', () => {
    expect(findings(withRecheck(undefined)).join('\n')).not.toMatch(/judged again|Verdicts as journaled/);
  });

  it('says when nothing could be re-checked', () => {
    const text = findings(withRecheck({ rechecked: 0, agreed: 0, changed: 0, changedCycles: [] })).join('\n');
    expect(text).toContain('no cycle has a journaled observation');
  });

  it('says all agree, with the count', () => {
    const text = findings(withRecheck({ rechecked: 12, agreed: 12, changed: 0, changedCycles: [] })).join('\n');
    expect(text).toContain('observations of 12 cycles');
    expect(text).toContain('all 12 agree');
  });

  it('names the changed cycles in summary.md and on the page, and says which verdicts the figures count', async () => {
    const a = withRecheck({ rechecked: 30, agreed: 27, changed: 3, changedCycles: [4, 9, 17] });
    const { dir } = await writeReport({ analysis: a, gates: makeGates(a), reportsDir });
    for (const file of ['summary.md', 'index.html']) {
      const text = await readFile(path.join(dir, file), 'utf8');
      expect(text, file).toContain('3 differ from the runner');
      expect(text, file).toContain('cycles 4, 9, 17');
      expect(text, file).toMatch(/figures count the re-checked verdicts/);
    }
    const json = JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as RunAnalysis['summary'];
    expect(json.recheck).toEqual({ rechecked: 30, agreed: 27, changed: 3, changedCycles: [4, 9, 17] });
  });
});
