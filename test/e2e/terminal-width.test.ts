// `soak gates` on a real terminal (a pty from util-linux's `script`, its width set with stty) fits its gate table and
// warning to the terminal's columns: at 80 and 120 no line but the one-line verdict (kept whole for grep) is wider.
// The saturated fixture's notes made the unfitted table 360 columns wide.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { cliPath, fixturePath } from '../helpers/paths.js';

/** `text` as one single-quoted shell word. */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** `soak gates <fixture>` on a pty `cols` wide: its output lines, carriage returns dropped. */
async function onTerminal(cols: number): Promise<string[]> {
  const soak = [process.execPath, cliPath, 'gates', fixturePath('journals', 'process-saturated')].map(quote).join(' ');
  const r = await execa('script', ['-q', '-e', '-c', `stty cols ${cols} rows 50; exec ${soak}`, '/dev/null'], {
    reject: false,
    timeout: 120_000,
    stdin: 'ignore',
    env: { SOAK_STRICT_TIMING: '' },
  });
  expect(r.exitCode, r.stderr).toBe(2); // inconclusive (saturated), as off a terminal
  return r.stdout.replace(/\r/g, '').split('\n');
}

describe.concurrent('the gate table on a terminal', () => {
  for (const cols of [80, 120])
    it(`fits ${cols} columns`, async () => {
      const lines = await onTerminal(cols);
      const verdict = lines.findIndex((l) => l.startsWith('verdict: '));
      expect(verdict, lines.join('\n')).toBeGreaterThan(8);
      for (const line of lines.slice(0, verdict)) expect(Array.from(line).length, line).toBeLessThanOrEqual(cols);
      expect(lines.some((l) => l.startsWith('warning: Measured on a saturated machine'))).toBe(true);
      expect(lines.join('\n')).toContain('04 Session resume latency p95: inconclusive (saturated)');
    });
});
