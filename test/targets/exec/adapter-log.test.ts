// The adapter's share of the host log: writes within the budget pass whole, the first past it leaves one notice, the
// rest is dropped and counted (the e2e flood in test/e2e/hostile-adapter.test.ts runs it on a real adapter).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AdapterLog } from '../../../harness/targets/exec/adapter-log.js';

describe('AdapterLog', () => {
  it('passes writes within the budget, then one notice, then drops and counts', () => {
    const out: string[] = [];
    const log = new AdapterLog((t) => out.push(String(t)), 10);
    log.line('abcd');
    log.line('efgh');
    log.line('ijkl'); // 12 > 10: dropped
    log.line('mn');
    expect(out.slice(0, 2)).toEqual(['abcd', 'efgh']);
    expect(out).toHaveLength(3);
    expect(out[2]).toMatch(/the rest is dropped/);
    expect(log.droppedBytes).toBe(6);
  });

  it('drains a stream whole past the budget (the adapter never blocks on its stderr)', async () => {
    const out: string[] = [];
    const log = new AdapterLog((t) => out.push(String(t)), 100);
    const s = new PassThrough();
    log.follow(s);
    for (let i = 0; i < 1000; i++) s.write(Buffer.alloc(1000, 'x'));
    s.end();
    await new Promise((r) => s.on('end', r));
    expect(log.droppedBytes).toBe(1000 * 1000);
    expect(out).toHaveLength(1);
  });
});
