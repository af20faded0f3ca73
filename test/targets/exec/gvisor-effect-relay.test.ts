// The gVisor adapter's effect relay (adapters/gvisor/effect-relay.mjs) is a copy, by design (an adapter imports no
// harness code), of the harness's (harness/targets/guest/effect-relay.ts): both must accept and refuse exactly the same
// console lines, and the adapter's line splitter must bound what a flooding sandbox can make it hold.
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEffectLine } from '../../../harness/targets/guest/effect-relay.js';
import { repoRoot } from '../../helpers/paths.js';

interface AdapterRelay {
  parseEffectLine: (line: string) => unknown;
  boundedLines: (s: NodeJS.ReadableStream, max: number, onLine: (l: string) => void) => void;
}
const adapterRelay = async (): Promise<AdapterRelay> =>
  (await import(pathToFileURL(path.join(repoRoot, 'adapters', 'gvisor', 'effect-relay.mjs')).href)) as AdapterRelay;

const s = 'ab'.repeat(8);
const k = 'c'.repeat(32);
const LINES = [
  `EFX ${s} step-key:5 step-key ${k} 5`,
  `EFX ${s} random-key:12 random-key ${k} 12`,
  `EFX ${s} no-key:7 no-key - 7`,
  `EFX ${s} step-key:5 step-key ${k} 5 ${'x'.repeat(300)}`,
  `EFX ${s} step-key:5 step-key ${k}${'0'.repeat(5000)} 5`,
  `EFX ${s} maybe:5 maybe ${k} 5`,
  `EFX ${s} no-key:5 no-key ${k} 5`,
  `EFX ${s} random-key:5 random-key - 5`,
  `EFX ${s} step-key:6 step-key ${k} 5`,
  `EFX ${s} no-key:5 step-key ${k} 5`,
  `EFX ${s} step-key:05 step-key ${k} 05`,
  `EFX ${s} step-key:05 step-key ${k} 5`,
  `EFX {"token":"x","session":"${s}"}`,
  `EFX ${s.toUpperCase()} step-key:5 step-key ${k} 5`,
  `EFX ${s} step-key:9999999999999999 step-key ${k} 9999999999999999`,
];

describe('the gVisor adapter relay', () => {
  it('accepts and refuses exactly the lines the harness relay does', async () => {
    const { parseEffectLine: theirs } = await adapterRelay();
    const verdict = (r: unknown) => ('error' in (r as object) ? 'refused' : r);
    for (const line of LINES) expect(verdict(theirs(line)), line.slice(0, 80)).toEqual(verdict(parseEffectLine(line)));
    expect(LINES.filter((l) => !('error' in parseEffectLine(l)))).toHaveLength(3); // the controls: valid lines pass
  });

  it('splits lines bounded: a flood without a newline is cut at the bound, the rest of that line dropped', async () => {
    const { boundedLines } = await adapterRelay();
    const stream = new PassThrough();
    const lines: string[] = [];
    boundedLines(stream, 1024, (l) => lines.push(l));
    stream.write('HB 1 0123456789abcdef\n');
    for (let i = 0; i < 100; i++) stream.write('y'.repeat(1000));
    stream.write('tail of the flood\nHB 2 0123456789abcdef\n');
    await new Promise((r) => setImmediate(r));
    expect(lines.map((l) => l.length)).toEqual([21, 1024, 21]);
    expect(lines[2]).toBe('HB 2 0123456789abcdef');
  });
});
