// Torture: a writer that commits checkpoints and collects garbage (keep 2) is SIGKILLed at 200 seeded random moments,
// half aimed into a checkpoint write, half into gc. After every kill: the store verifies (every chunk of every listed
// checkpoint present and intact), the latest checkpoint is not older than the last one reported committed, the two
// newest committed checkpoints are still listed, and the latest restores byte-identical to its deterministic content
// (including a page-split migration stream whose changed pages are stored as deltas against older checkpoints' pages).
// Negative control: the same kills against a gc that deletes the packs it drops before the old manifests naming them
// are gone (the order bug gc's step order prevents) are caught by the same checks.
// Size: 200 kills is the count issue 17 relies on ("the 200-kill store torture test"); each kill starts a
// Node child, so the kills are its time. The control has its own store and runs beside it.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gcStore } from '../../harness/store/gc.js';
import { Store } from '../../harness/store/store.js';
import { verifyStore } from '../../harness/store/check/verify.js';
import { rng } from '../helpers/rng.js';
import { calibrate, checkStore, KEEP, killOnce } from '../helpers/store-torture.js';

const KILLS = 200;
const SEED = 0x5eed_0006;

describe('store torture: SIGKILL during put and gc', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'soak-torture-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.concurrent(
    `${KILLS} seeded kills: verify passes and the latest checkpoint restores byte-identical after each`,
    { timeout: 900_000 }, // bounded by its kill count; a loaded machine makes each kill round slower, not the test weaker
    async () => {
      const windows = await calibrate();
      const random = rng(SEED);
      let maxCommitted = 0;
      const landed = { put: 0, gc: 0, between: 0 };
      for (let k = 0; k < KILLS; k++) {
        const kill = await killOnce(dir, random, windows, random() < 0.5);
        landed[kill.landed]++;
        maxCommitted = Math.max(maxCommitted, ...kill.committed);
        const { problems, latestSeq } = await checkStore(dir, maxCommitted);
        expect(problems, `kill ${k}`).toEqual([]);
        maxCommitted = Math.max(maxCommitted, latestSeq);
      }
      const where = JSON.stringify(landed);
      // The schedule must really have hit both operations, or this proved little.
      expect(landed.gc, where).toBeGreaterThanOrEqual(40);
      expect(landed.put, where).toBeGreaterThanOrEqual(40);
      console.log(
        `torture: ${KILLS} kills (write ${windows.writeMs.toFixed(1)} ms, gc ${windows.gcMs.toFixed(1)} ms): ${where}; latest seq ${maxCommitted}`,
      );

      // Afterwards a clean gc leaves only the newest KEEP checkpoints, no torn packs, and a store that still verifies.
      const store = Store.open(dir);
      const report = gcStore(store, KEEP);
      expect(store.list().map((m) => m.seq)).toEqual(report.kept);
      expect(report.kept).toHaveLength(KEEP);
      expect(verifyStore(store).problems).toEqual([]);
      // The ram part's changed pages were stored as deltas, so kills also hit delta writes and gc's base rule.
      const ram = store.latest()!.parts.find((p) => p.name === 'ram')!;
      expect(ram.chunks.filter((h) => store.locate(h)?.base !== undefined).length).toBeGreaterThan(0);
      store.close();
      const packs = readdirSync(path.join(dir, 'packs'));
      expect(packs.filter((f) => f.endsWith('.pack') && !packs.includes(f.replace(/\.pack$/, '.idx')))).toEqual([]);
    },
  );

  it.concurrent(
    'negative control: a gc that deletes packs before the old manifests are gone is caught within 120 kills',
    { timeout: 180_000 },
    async () => {
      const own = mkdtempSync(path.join(os.tmpdir(), 'soak-torture-neg-'));
      try {
        const windows = await calibrate({ unsafe: true });
        const random = rng(SEED + 1);
        let maxCommitted = 0;
        let caught: { kill: number; problems: string[] } | null = null;
        for (let k = 0; k < 120 && caught === null; k++) {
          // Half the kills land in writes, so the store grows and gc has packs to drop.
          const kill = await killOnce(own, random, windows, random() < 0.5, { unsafe: true });
          maxCommitted = Math.max(maxCommitted, ...kill.committed);
          const { problems, latestSeq } = await checkStore(own, maxCommitted);
          if (problems.length > 0) caught = { kill: k, problems };
          maxCommitted = Math.max(maxCommitted, latestSeq);
        }
        expect(caught, 'the unsafe gc order was never caught').not.toBeNull();
        expect(caught!.problems.join('\n')).toMatch(/verify: checkpoint \d+/);
        console.log(`torture negative control: caught at kill ${caught!.kill}: ${caught!.problems[0]}`);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    },
  );
});
