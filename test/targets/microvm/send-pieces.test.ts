// Sending a restore's stream to QEMU's incoming socket (migrate.ts sendPieces) with reused piece buffers: each piece's
// write is done before the piece after the next one is made, so QEMU gets the right bytes however slowly it reads
// (negative control: a sender that does not wait for its writes, over the same three reused buffers, sends wrong
// bytes), and a source that
// fails mid-stream fails the send with its own error.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import { sendPieces } from '../../../harness/targets/microvm/migrate.js';

const PIECE = 1 << 20;
const PIECES = 12;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-send-pieces-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * PIECES pieces of PIECE bytes, piece i filled with byte i, in three reused buffers; like the store's Batcher, making
 * piece i also writes the first bytes of piece i+1 into the next buffer before piece i is handed out.
 */
function reusedPieces(made: { n: number }, failAt = -1): AsyncIterable<Buffer> {
  const bufs = [0, 1, 2].map(() => Buffer.alloc(PIECE));
  return (async function* () {
    for (let i = 0; i < PIECES; i++) {
      await Promise.resolve(); // an async source, as the store's read is
      if (i === failAt) throw new IntegrityError('chunk abc fails its hash check');
      const b = bufs[i % 3]!;
      b.fill(i, i === 0 ? 0 : 4096); // the first 4 KiB were written while piece i-1 was made
      if (i + 1 < PIECES) bufs[(i + 1) % 3]!.fill(i + 1, 0, 4096);
      made.n = i + 1;
      yield b;
    }
  })();
}

/** A peer that starts reading once the source made `lead` pieces (or two, and `waitMs` passed), then collects every byte. */
async function slowPeer(
  made: { n: number },
  send: (conn: net.Socket) => Promise<void>,
  lead = 6,
  waitMs = 400,
): Promise<{ bytes: Buffer; madeAtStart: number }> {
  const file = path.join(dir, `s${Math.random().toString(36).slice(2)}.sock`);
  const got: Buffer[] = [];
  let madeAtStart = -1;
  const received = new Promise<Buffer>((resolve, reject) => {
    const server = net.createServer((peer) => {
      peer.pause();
      const start = Date.now();
      const poll = setInterval(() => {
        if (made.n < lead && (made.n < 2 || Date.now() - start < waitMs)) return; // two made: one write waits
        clearInterval(poll);
        madeAtStart = made.n;
        peer.on('data', (d: Buffer) => got.push(d));
        peer.on('end', () => {
          server.close();
          resolve(Buffer.concat(got));
        });
        peer.on('error', reject);
        peer.resume();
      }, 5);
    });
    server.listen(file);
  });
  await new Promise((r) => setTimeout(r, 0));
  const conn = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.createConnection({ path: file });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
  await send(conn);
  return { bytes: await received, madeAtStart };
}

/** Which pieces arrived wrong (each must be all its own index byte). */
function wrongPieces(bytes: Buffer): number[] {
  const bad: number[] = [];
  for (let i = 0; i < PIECES; i++) {
    const p = bytes.subarray(i * PIECE, (i + 1) * PIECE);
    if (p.length !== PIECE || p.some((x) => x !== i)) bad.push(i);
  }
  return bad;
}

describe('sendPieces', () => {
  it('sends reused pieces byte for byte to a peer that reads late, the source never more than one piece ahead', async () => {
    const made = { n: 0 };
    let total = 0;
    const { bytes, madeAtStart } = await slowPeer(made, (conn) =>
      sendPieces(reusedPieces(made), conn, (n) => (total += n)),
    );
    expect(madeAtStart).toBe(2); // piece 0's write waits for the peer; piece 1 waits for it
    expect(bytes.length).toBe(PIECES * PIECE);
    expect(wrongPieces(bytes)).toEqual([]);
    expect(total).toBe(PIECES * PIECE);
  });

  it('negative control: a sender that does not wait for its writes sends wrong bytes from the same reused buffers', async () => {
    const made = { n: 0 };
    const { bytes, madeAtStart } = await slowPeer(made, async (conn) => {
      for await (const piece of reusedPieces(made)) conn.write(piece);
      conn.end();
    });
    expect(madeAtStart).toBeGreaterThanOrEqual(6);
    expect(bytes.length).toBe(PIECES * PIECE);
    expect(wrongPieces(bytes).length).toBeGreaterThan(0);
  });

  it('a source that fails mid-stream fails the send with its own error', async () => {
    const made = { n: 0 };
    let failure: unknown;
    await slowPeer(made, async (conn) => {
      failure = await sendPieces(reusedPieces(made, 5), conn, () => {}).catch((err: unknown) => err);
      conn.destroy();
    });
    expect(failure).toBeInstanceOf(IntegrityError);
    expect(made.n).toBe(5);
  });
});
