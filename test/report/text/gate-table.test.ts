// The terminal gate table prints each gate's figures through gate-format.ts: a rate as "100% (100/100)", never "1 (100/100)";
// fitted to the terminal's width (80 and 120 columns: no line wider, nothing dropped; 100 off a terminal).
import { describe, expect, it } from 'vitest';
import { evaluateGates, loadGates } from '../../../harness/gates/evaluate.js';
import type { GateEvidence } from '../../../harness/gates/types.js';
import { formatGateTable, gateTableCells, tableWidth, wrapText } from '../../../harness/report/text/gate-table.js';
import { healthySamples, healthySummary } from '../../gates/fixtures.js';
import { judge } from '../../../harness/gates/judge.js';
import { loadRuns } from '../../../harness/analysis/load-runs.js';
import { fixturePath } from '../../helpers/paths.js';

const clean: GateEvidence = { lostBeyondCheckpoint: 0, samples: healthySamples() };

describe('formatGateTable', () => {
  it('prints a header and one aligned row per gate, in the units summary.md uses', () => {
    const table = formatGateTable(evaluateGates(loadGates(), healthySummary(), clean));
    const lines = table.split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(
      /^#\s+gate\s+threshold\s+observed\s+95% interval\s+judged on\s+n \(min\)\s+verdict\s+note$/,
    );
    expect(lines[7]).toMatch(
      /^06\s+Kill-and-resume success\s+wilson95\.lo >= 95%\s+100% \(100\/100\)\s+\[96\.3%, 100%\]\s+lower end, 96\.3%\s+100 \(73\)\s+pass\s+n needed with zero failures: 73/,
    );
    expect(lines[5]).toMatch(
      /^04\s+Session resume latency p95\s+p95 < 1000 ms\s+290 ms\s+\[\d+ ms, 300 ms\]\s+point estimate; 95% bound ≤ \d+ ms\s+100 \(59\)\s+pass, solid at 95%/,
    );
    expect(table).not.toMatch(/\b1 \(100\/100\)/); // the old table printed a rate as its raw proportion
  });
});

/** Characters on a line as a terminal counts them (code points: "–" is one). */
const cols = (line: string): number => Array.from(line).length;

/** The words of `text`, whitespace normalised: what a reader can still read after wrapping. */
const words = (text: string): string => text.split(/\s+/).filter(Boolean).join(' ');

describe('formatGateTable fitted to a width', () => {
  it('at 80 and 120 columns no line is wider, and every gate keeps its number, title, verdict and note', async () => {
    // the saturated fixture: long notes (solid fails below minN, saturated timing gates): 360 columns unfitted
    const { analysis } = await loadRuns([fixturePath('journals', 'process-saturated')]);
    const gates = judge(analysis).gates;
    expect(
      Math.max(
        ...formatGateTable(gates)
          .split('\n')
          .map((l) => cols(l)),
      ),
    ).toBeGreaterThan(200);
    for (const width of [80, 120]) {
      const table = formatGateTable(gates, width);
      for (const line of table.split('\n')) expect(cols(line), `${width}: ${line}`).toBeLessThanOrEqual(width);
      for (const g of gates) {
        const [id, title, , , , , , verdict, note] = gateTableCells(g);
        expect(words(table)).toContain(words(`${id} ${title}: ${verdict}`));
        expect(words(table)).toContain(words(note!));
      }
      expect(table).toContain('inconclusive (saturated)');
    }
  });

  it('a table that fits is left whole; one a little too wide folds "judged on" and the note under each row', () => {
    const gates = evaluateGates(loadGates(), healthySummary(), clean);
    const whole = formatGateTable(gates);
    const w = Math.max(...whole.split('\n').map((l) => l.length));
    expect(formatGateTable(gates, w)).toBe(whole);
    const folded = formatGateTable(gates, w - 1).split('\n');
    expect(folded[0]).toMatch(/^#\s+gate\s+threshold\s+observed\s+95% interval\s+n \(min\)\s+verdict$/);
    expect(folded[3]).toMatch(/^ {4}judged on /);
    for (const line of folded) expect(line.length).toBeLessThanOrEqual(w - 1);
  });

  it('wraps at spaces, cuts a word longer than the line, and hostile controls are made visible before measuring', () => {
    expect(wrapText('aa bb cc', 5)).toEqual(['aa bb', 'cc']);
    expect(wrapText('abcdefgh', 3, ' ')).toEqual([' ab', ' cd', ' ef', ' gh']);
    const gates = evaluateGates(loadGates(), healthySummary(), clean).map((g, i) =>
      i === 0 ? { ...g, title: `${'x'.repeat(150)}\u202e\u001b[2J\nsecond`, note: 'y'.repeat(300) } : g,
    );
    const table = formatGateTable(gates, 80);
    for (const line of table.split('\n')) expect(cols(line)).toBeLessThanOrEqual(80);
    expect(table.includes('\u202e') || table.includes('\u001b')).toBe(false);
    expect(table.replace(/\n */g, '')).toContain('[U+202E][U+001B][2J'); // the line break in the title: a space
  });

  it("the width: the terminal's columns, 100 off a terminal (CI logs) or when a terminal gives none", () => {
    expect(tableWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(tableWidth({ isTTY: true, columns: 120 })).toBe(120);
    expect(tableWidth({ isTTY: false, columns: 80 })).toBe(100);
    expect(tableWidth({ isTTY: true })).toBe(100);
    expect(tableWidth({})).toBe(100);
  });
});
