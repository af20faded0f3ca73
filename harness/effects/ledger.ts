// The effect ledger: the world the agent's effects reach. A real service the runner starts for the run: a TCP server
// on 127.0.0.1 (a port the kernel picks) that refuses any request without the run's token, backed by LedgerDb; each
// request is acknowledged only once its row is committed, so an acknowledgement survives the runner's SIGKILL.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { LEDGER_FILE, LedgerDb, type LedgerRow } from './ledger-db.js';
import { MAX_REQUEST_BYTES, parseRequest, type LedgerReply } from './request.js';

/** The ledger file of run folder `runDir`. */
export function ledgerFile(runDir: string): string {
  return path.join(runDir, LEDGER_FILE);
}

/** A running ledger: where agents reach it, its token, and the runner's reads of what the world saw. */
export class EffectLedger {
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly db: LedgerDb,
    private readonly server: Server,
    readonly address: string,
    readonly token: string,
  ) {}

  /** Serve the ledger of `runDir` (which must exist: LedgerDb.create made it with the run folder). */
  static async start(runDir: string): Promise<EffectLedger> {
    const db = LedgerDb.open(ledgerFile(runDir));
    const token = randomBytes(16).toString('hex');
    const holder: { ledger: EffectLedger | null } = { ledger: null };
    const server = createServer((socket) => holder.ledger?.serve(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
    } catch (err) {
      db.close();
      throw err;
    }
    const addr = server.address();
    const port = addr !== null && typeof addr === 'object' ? addr.port : 0;
    holder.ledger = new EffectLedger(db, server, `127.0.0.1:${port}`, token);
    return holder.ledger;
  }

  private serve(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buf = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!socket.destroyed) socket.write(`${JSON.stringify(this.answer(line))}\n`);
      }
      if (buf.length > MAX_REQUEST_BYTES) socket.destroy();
    });
  }

  /** The reply to one request line: committed before it is acknowledged. */
  private answer(line: string): LedgerReply {
    const parsed = parseRequest(line);
    if ('error' in parsed) return { ok: false, error: parsed.error };
    const given = Buffer.from(parsed.token);
    const want = Buffer.from(this.token);
    if (given.length !== want.length || !timingSafeEqual(given, want)) return { ok: false, error: 'token: refused' };
    const { seq, applied } = this.db.record(parsed.req, Date.now());
    return { ok: true, seq, applied };
  }

  /** Every committed row (of `session`, when given), in arrival order. */
  rows(session?: string): LedgerRow[] {
    return this.db.rows(session);
  }

  /** Requests recorded so far, per discipline (what the world has been sent, live). */
  countsByDiscipline(): ReturnType<LedgerDb['countsByDiscipline']> {
    return this.db.countsByDiscipline();
  }

  /** Mark `incarnation` a clone's: its rows are accounted apart (effects/clone-accounting.ts). */
  markClone(incarnation: string): void {
    this.db.markClone(incarnation);
  }

  /** The incarnations marked as clones. */
  clones(): Set<string> {
    return this.db.clones();
  }

  /** Mark rows counted by a journaled accounting. */
  markAccounted(seqs: readonly number[]): void {
    this.db.markAccounted(seqs);
  }

  /** Stop serving and close the database (open connections are cut). */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.db.close();
  }
}
