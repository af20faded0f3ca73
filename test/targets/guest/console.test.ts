// Unit tests for the microvm console wire: heartbeat line parsing and line splitting with kernel noise.
import { describe, expect, it } from 'vitest';
import { ConsoleReader, parseHeartbeatLine } from '../../../harness/targets/guest/console.js';
import type { Heartbeat } from '../../../harness/check/heartbeat.js';

const d = (c: string): string => c.repeat(64);

describe('parseHeartbeatLine', () => {
  it('parses a light heartbeat', () => {
    expect(parseHeartbeatLine('HB 42 0123456789abcdef')).toEqual({ step: 42, nonce: '0123456789abcdef', full: false });
  });

  it('parses a full heartbeat with its three parts', () => {
    const hb = parseHeartbeatLine(`HBF 7 0123456789abcdef 6 ${d('a')} 7 ${d('b')} 7 ${d('c')}\r`);
    expect(hb).toEqual({
      step: 7,
      nonce: '0123456789abcdef',
      full: true,
      fs: { step: 6, digest: d('a') },
      mem: { step: 7, digest: d('b') },
      tool: { step: 7, digest: d('c') },
    });
  });

  it("parses the coding workload's account at the end of a full heartbeat, after the effects claim if any", () => {
    const line = `HBF 7 0123456789abcdef 7 ${d('a')} 7 ${d('b')} 7 ${d('c')}`;
    expect(parseHeartbeatLine(`${line} W 12 1 11 serve`)?.work).toEqual({
      iteration: 12,
      failures: 1,
      served: 11,
      last: 'serve',
    });
    const both = parseHeartbeatLine(`${line} E 5 1 2 3 W 0 0 0 -`);
    expect(both?.effects?.through).toBe(5);
    expect(both?.work).toEqual({ iteration: 0, failures: 0, served: 0, last: '-' });
    expect(parseHeartbeatLine(line)?.work).toBeUndefined();
    expect(parseHeartbeatLine(`${line} W 12 1 serve`)).toBeUndefined(); // a field missing
    expect(parseHeartbeatLine(`${line} W 12 -1 11 serve`)).toBeUndefined();
    // a garbled number no journal count can hold (>= 2^53) is no heartbeat, in any field
    expect(parseHeartbeatLine(`${line} W ${'9'.repeat(16)} 0 0 -`)).toBeUndefined();
    expect(parseHeartbeatLine(`HB ${'9'.repeat(16)} 0123456789abcdef`)).toBeUndefined();
    expect(parseHeartbeatLine(`HB ${'9'.repeat(15)} 0123456789abcdef`)?.step).toBe(999_999_999_999_999);
  });

  it('accepts a heartbeat glued after console noise, rejects malformed ones', () => {
    expect(parseHeartbeatLine('Probing EDD... okHB 3 0123456789abcdef')?.step).toBe(3);
    expect(parseHeartbeatLine('HB 3 0123456789ABCDEF')).toBeUndefined();
    expect(parseHeartbeatLine('HB 3 0123456789abcde')).toBeUndefined();
    expect(parseHeartbeatLine(`HBF 7 0123456789abcdef 6 ${d('a')} 7 ${d('b')} 7`)).toBeUndefined();
    expect(parseHeartbeatLine('[    1.2] Run /init as init process')).toBeUndefined();
  });
});

describe('ConsoleReader', () => {
  it('joins chunks into lines, emits heartbeats in order and keeps the last noise lines', () => {
    const seen: Heartbeat[] = [];
    const r = new ConsoleReader((hb) => seen.push(hb), 2);
    r.push('INIT-ERROR one\nHB 1 0123456789ab');
    r.push('cdef\nHB 2 0123456789abcdef\nnoise two\nnoise three\nHB 3 0123');
    expect(seen.map((h) => h.step)).toEqual([1, 2]);
    expect(r.recentNoise()).toEqual(['noise two', 'noise three']);
  });

  it('reports HOLD acknowledgements separately from heartbeats and noise', () => {
    const holds: number[] = [];
    const r = new ConsoleReader(
      () => {},
      5,
      (step) => holds.push(step),
    );
    r.push('HOLD 17\nHOLD x\n');
    expect(holds).toEqual([17]);
    expect(r.recentNoise()).toEqual(['HOLD x']);
  });
});
