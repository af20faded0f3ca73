// The growth bench's pure parts (bench/growth-page.ts): its options (a bad one is one line, exit 3, without running),
// the journal's per-cycle samples and their groups by checkpoints in the store, the size table with ratios to each
// size's own floor, issue 37's bar at 1 GiB judged (met, missed, not measured), and the page with its chart.
import path from 'node:path';
import { execaNode } from 'execa';
import { describe, expect, it } from 'vitest';
import {
  barAt1GiB,
  growthOptions,
  growthPage,
  type ModeFigures,
  type SizeRow,
  sizeRows,
} from '../../bench/growth-page.js';
import { byCheckpoints, journalSamples } from '../../bench/growth-samples.js';
import { repoRoot } from '../helpers/paths.js';

const DEFAULTS = {
  sizes: '256,512,1024,2048',
  cycles: '6',
  floor: '3',
  modes: 'cold,standby',
  dirty: '0,256,1024',
  checkpoints: '24',
};

const mode = (m: string, p50: number, ram = p50 / 2): ModeFigures => ({
  mode: m,
  p50,
  p95: p50 * 1.5,
  resumed: 6,
  cycles: 6,
  steps: { killToHandOff: 50, restoreBegin: 1, ram, cont: 8, firstFullHb: 40 },
  logicalPerCkpt: 57e6,
  storedPerCkpt: 1e5,
});
const size = (memoryMiB: number, floor: number[], modes: ModeFigures[]): SizeRow => ({
  memoryMiB,
  floorMs: floor,
  floorPhases: { qmpMs: 60, loadMs: 50, contToHbMs: 40 },
  streamBytes: memoryMiB * 2e5,
  modes,
  load: '1.00 1.00 1.00',
});

describe('growth options', () => {
  it('reads the lists and the numbers; --at defaults to the first size', () => {
    expect(growthOptions(DEFAULTS)).toEqual({
      sizes: [256, 512, 1024, 2048],
      cycles: 6,
      floor: 3,
      dirty: [0, 256, 1024],
      checkpoints: 24,
      at: 256,
      modes: ['cold', 'standby'],
      bootWaitS: 60,
    });
    expect(growthOptions({ ...DEFAULTS, dirty: '', at: '1024', modes: 'standby' })).toMatchObject({
      dirty: [],
      at: 1024,
      modes: ['standby'],
    });
  });

  it('refuses a bad value, naming the option and what it got', () => {
    const bad: Array<[Record<string, string>, RegExp]> = [
      [{ sizes: '256,,1024' }, /^--sizes must list guest sizes in MiB, 64-16384, comma-separated \(got "256,,1024"\)$/],
      [{ sizes: '32' }, /^--sizes /],
      [{ sizes: '1.5' }, /^--sizes /],
      [{ cycles: '0' }, /^--cycles must be a whole number 1-10000 \(got "0"\)$/],
      [{ floor: 'x' }, /^--floor /],
      [{ dirty: '-1' }, /^--dirty /],
      [{ dirty: '65537' }, /^--dirty must list KiB dirtied per step, 0-65536/],
      [{ checkpoints: '-1' }, /^--checkpoints /],
      [{ modes: 'cold,hot' }, /^--modes must list cold, standby and\/or pool \(got "cold,hot"\)$/],
      [{ at: '20000' }, /^--at /],
      [{ 'boot-wait': '5' }, /^--boot-wait must be a whole number 10-600 \(got "5"\)$/],
    ];
    for (const [v, message] of bad)
      expect(() => growthOptions({ ...DEFAULTS, ...v }), JSON.stringify(v)).toThrow(message);
  });

  it('the bench exits 3 with that one line before measuring anything', async () => {
    const r = await execaNode(path.join(repoRoot, 'dist', 'bench', 'growth.js'), ['--sizes', '256,x'], {
      reject: false,
      timeout: 60_000,
    });
    expect(r.exitCode).toBe(3);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^growth: --sizes must list /)]);
    expect(r.stdout).toBe('');
  });
});

describe('journal samples and checkpoints in the store', () => {
  const journal = [
    '{"type":"run-start"}',
    '{"type":"checkpoint","cycle":1,"logicalBytes":100,"storedBytes":10}',
    '{"type":"cycle","cycle":1,"downtimeMs":500}',
    '{"type":"checkpoint","cycle":2,"logicalBytes":100,"storedBytes":2}',
    '{"type":"checkpoint","cycle":2,"logicalBytes":100,"storedBytes":3}',
    '{"type":"cycle","cycle":2,"downtimeMs":700}',
    '{"type":"cycle","cycle":3,"downtimeMs":null}',
    '{"type":"checkpoint","cycle":4,"logicalBytes":100,"storedBytes":4}',
    '{"type":"cycle","cycle":4,"downtimeMs":900}',
    '{"type":"cycle","cyc', // a torn last line
  ].join('\n');

  it("each resumed cycle with the checkpoints journaled before it; each checkpoint's bytes", () => {
    const j = journalSamples(journal);
    expect(j.cycles).toEqual([
      { checkpoints: 1, downtimeMs: 500 },
      { checkpoints: 3, downtimeMs: 700 },
      { checkpoints: 4, downtimeMs: 900 },
    ]);
    expect(j.checkpoints.map((c) => c.storedBytes)).toEqual([10, 2, 3, 4]);
  });

  it('groups consecutive cycles: checkpoints first-last, n, p50, max', () => {
    const cycles = [1, 2, 3, 4, 5, 6, 7].map((i) => ({ checkpoints: i * 2, downtimeMs: i * 100 }));
    expect(byCheckpoints(cycles, 3)).toEqual([
      { from: 2, to: 6, n: 3, p50: 200, max: 300 },
      { from: 8, to: 12, n: 3, p50: 500, max: 600 },
      { from: 14, to: 14, n: 1, p50: 700, max: 700 },
    ]);
  });
});

describe('the size table and the bar', () => {
  const rows = [
    size(256, [200, 240, 220], [mode('cold', 660), mode('standby', 440)]),
    size(1024, [300, 320, 310], [mode('cold', 900), mode('standby', 460)]),
    { ...size(2048, [], []), floorPhases: null, streamBytes: null, skipped: 'no heartbeat within 60000 ms' },
  ];

  it("sets each mode against its own size's floor median, with the RAM step apart from the other steps", () => {
    const t = sizeRows(rows);
    expect(t).toHaveLength(5);
    expect(t[0]).toEqual([
      '256',
      '220 (200-240, 3)',
      '50',
      '51.2',
      'cold',
      '660 (3.00x)',
      '990 (4.50x)',
      '6/6',
      '330',
      'killToHandOff 50, restoreBegin 1, cont 8, firstFullHb 40',
      '1.00 1.00 1.00',
    ]);
    expect(t[3]![5]).toBe('460 (1.48x)'); // 1024 MiB standby against the 1024 MiB floor (310), not the 256 MiB one
    expect(t[4]).toEqual([
      '2048',
      '-',
      '-',
      '-',
      '-',
      'not measured: no heartbeat within 60000 ms',
      '-',
      '-',
      '-',
      '-',
      '1.00 1.00 1.00',
    ]);
  });

  it("judges issue 37's bar at 1 GiB per mode, and says when 1 GiB was not measured", () => {
    expect(barAt1GiB(rows)).toBe(
      'Issue 37 bar (1 GiB from the store, p50 <= 1.5x the 1 GiB floor of 310 ms): cold 2.90x misses; standby 1.48x meets.',
    );
    expect(barAt1GiB(rows.slice(0, 1))).toMatch(/: not measured\.$/);
    expect(barAt1GiB([{ ...rows[1]!, skipped: 'did not boot' }])).toMatch(/: not measured\.$/);
  });

  it('writes a page whose text is escaped, with the chart as an SVG with no script', async () => {
    const page = await growthPage({
      options: growthOptions(DEFAULTS),
      cores: 2,
      accel: 'tcg',
      date: '2026-12-05 16:00 UTC',
      command: 'node dist/bench/growth.js --sizes <script>x</script>',
      load: { before: '1.00', after: '2.00' },
      sizes: rows,
      dirty: [{ kibPerStep: 256, figures: mode('standby', 450), load: '1.0' }],
      checkpoints: { memoryMiB: 256, groups: [{ from: 1, to: 9, n: 8, p50: 440, max: 700 }] },
    });
    expect(page.html).not.toContain('<script>x');
    expect(page.html).toContain('&lt;script&gt;x');
    expect(page.html).toMatch(/<svg[^>]*>[\s\S]*Resume downtime against guest RAM[\s\S]*<\/svg>/);
    expect(page.html).not.toMatch(/<script/);
    expect(page.markdown).toContain('| 1024 | 310 (300-320, 3) | 50 | 204.8 | standby | 460 (1.48x) |');
    expect(page.markdown).toContain('| 256 | standby | 450 (2.05x) |'); // against the 256 MiB floor (220)
    expect(page.markdown).toContain('| 1-9 | 8 | 440 (2.00x) | 700 |');
    expect(page.bar).toMatch(/standby 1\.48x meets/);
  });
});
