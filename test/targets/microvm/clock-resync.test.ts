// The host side of the guest's ttyS2 (clock-resync.ts): a fresh RNG seed per restore, written again until the guest
// answers for that seed; an answer to a stale seed line (left in the serial buffer by a checkpoint) is not taken for it.
// A unix socket stands in for QEMU's chardev; the guest's side (clock-sync.c) runs for real in guest-probe.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ClockResync } from '../../../harness/targets/microvm/clock-resync.js';
import { fakePort } from '../../helpers/fake-port.js';
import { waitFor } from '../../helpers/microvm.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'clock-port-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('ClockResync.reseed', () => {
  it('writes a new 32-byte seed (64 letters a-p, no digit) until the guest answers for that seed', async () => {
    const sock = path.join(tmp, 'port.sock');
    const guest = await fakePort(sock);
    const lines = guest.lines;
    const port = new ClockResync();
    try {
      await port.attach(sock);
      let done = false;
      const seeded = port.reseed(30_000).then(() => (done = true));
      await waitFor(() => (lines.length >= 2 ? true : undefined), 10_000, 'the seed written twice (unanswered)');
      expect(lines[0]).toMatch(/^seed [a-p]{64}$/);
      expect(lines[1]).toBe(lines[0]); // the same seed again: bytes around a restore may be lost
      const mine = lines[0]!.slice(5, 13);
      const stale = `${mine[0] === 'a' ? 'b' : 'a'}${mine.slice(1)}`;
      guest.write(`seeded ${stale}\r\n`); // the answer to a stale seed line: not this seed's
      const n = lines.length;
      await waitFor(() => (lines.length > n ? true : undefined), 10_000, 'one more write after the stale answer');
      expect(done).toBe(false);
      guest.write(`seeded ${mine}\r\n`);
      await seeded;
    } finally {
      port.detach();
      guest.close();
    }
  });

  it('two restores get two different seeds', async () => {
    const sock = path.join(tmp, 'port2.sock');
    const guest = await fakePort(sock);
    const lines = guest.lines;
    const port = new ClockResync();
    try {
      await port.attach(sock);
      void port.reseed(30_000);
      await waitFor(() => (lines.length >= 1 ? true : undefined), 10_000, 'the first seed');
      port.detach(); // the QEMU is gone: the wait ends
      await port.attach(sock);
      const first = lines[0];
      void port.reseed(30_000);
      await waitFor(() => (lines.some((l) => l !== first) ? true : undefined), 10_000, 'the second seed');
    } finally {
      port.detach();
      guest.close();
    }
  });
});
