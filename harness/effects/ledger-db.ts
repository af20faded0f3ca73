// The effect ledger's database: one SQLite file in the run folder (WAL, synchronous FULL), a row per effect request,
// each applied or deduplicated by its idempotency key; a request is acknowledged only after its row is committed.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import Database from 'better-sqlite3';
import { InputError } from '../core/errors.js';
import { DISCIPLINES, type Discipline } from './plan.js';

/** The ledger's file name in a run folder. */
export const LEDGER_FILE = 'effects.sqlite';
/** What the meta table says a ledger is (a file without it is not one of ours). */
const FORMAT = 'keepstate-soak effect ledger 1';

/** One effect request as the agent sent it. */
export interface EffectRequest {
  session: string;
  /** The agent process that sent it (a resumed session is a new incarnation). */
  incarnation: string;
  /** The logical effect: the same on every re-emission (plan.ts effectId). */
  effect: string;
  discipline: Discipline;
  key: string | null;
  /** The agent's step when it emitted the effect. */
  step: number;
}

/** One committed row: the request, when it arrived (wall ms), whether the world applied it or deduplicated it. */
export interface LedgerRow extends EffectRequest {
  seq: number;
  arrivedMs: number;
  applied: boolean;
  accounted: boolean;
}

const SCHEMA = `
CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
CREATE TABLE requests (
  seq INTEGER PRIMARY KEY, session TEXT NOT NULL, incarnation TEXT NOT NULL, effect TEXT NOT NULL,
  discipline TEXT NOT NULL, key TEXT, step INTEGER NOT NULL, arrived_ms REAL NOT NULL,
  applied INTEGER NOT NULL, accounted INTEGER NOT NULL DEFAULT 0);
CREATE TABLE applied_keys (key TEXT PRIMARY KEY, seq INTEGER NOT NULL);
CREATE INDEX requests_by_session ON requests (session, seq);`;

/** A ledger file that is missing or is not a sound ledger: exit 3, one line naming the file. */
function damaged(file: string, why: string, cause?: unknown): InputError {
  return new InputError(`effect ledger ${file} ${why}`, { cause });
}

/** True when `file` starts with SQLite's 16-byte magic header. */
function hasSqliteHeader(file: string): boolean {
  const fd = openSync(file, 'r');
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === 'SQLite format 3\0';
  } finally {
    closeSync(fd);
  }
}

/** The ledger's database, opened by the one process that serves it. */
export class LedgerDb {
  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
  ) {}

  /** Create a new, empty ledger at `file` (it must not exist). */
  static create(file: string): LedgerDb {
    if (existsSync(file)) throw damaged(file, 'exists already: a new run never reuses a ledger');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO meta (k, v) VALUES (?, ?)').run('format', FORMAT);
    return new LedgerDb(db, file);
  }

  /** Open the existing ledger at `file`, checked: missing, not SQLite, damaged or not a ledger is an InputError. */
  static open(file: string, opts: { readonly?: boolean } = {}): LedgerDb {
    if (!existsSync(file))
      throw damaged(file, 'is missing: this run emits effects, and its ledger is what the world saw');
    let db: Database.Database | null = null;
    try {
      // SQLite reads pages the WAL holds from the WAL, so a damaged header can pass its checks: ours looks first
      if (!hasSqliteHeader(file)) throw damaged(file, 'is damaged: it does not start with the SQLite header');
      db = new Database(file, { fileMustExist: true, readonly: opts.readonly === true });
      if (opts.readonly !== true) db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      const check = db.pragma('quick_check', { simple: true });
      const said = String(check).split('\n').join('; ').slice(0, 200);
      if (check !== 'ok') throw damaged(file, `is damaged: SQLite quick_check says ${said}`);
      const format = db.prepare("SELECT v FROM meta WHERE k = 'format'").get() as { v: string } | undefined;
      if (format?.v !== FORMAT) throw damaged(file, `is not an effect ledger (format ${String(format?.v)})`);
      return new LedgerDb(db, file);
    } catch (err) {
      db?.close();
      if (err instanceof InputError) throw err;
      throw damaged(file, `is damaged: ${(err as Error).message.split('\n')[0] ?? ''}`, err);
    }
  }

  /** Record one request and commit it (synchronous FULL: on disk when this returns): applied, or deduplicated by key. */
  record(req: EffectRequest, arrivedMs: number): { seq: number; applied: boolean } {
    return this.db.transaction(() => {
      const seen =
        req.key === null ? undefined : this.db.prepare('SELECT seq FROM applied_keys WHERE key = ?').get(req.key);
      const applied = seen === undefined;
      const info = this.db
        .prepare(
          'INSERT INTO requests (session, incarnation, effect, discipline, key, step, arrived_ms, applied) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(req.session, req.incarnation, req.effect, req.discipline, req.key, req.step, arrivedMs, applied ? 1 : 0);
      const seq = Number(info.lastInsertRowid);
      if (applied && req.key !== null)
        this.db.prepare('INSERT INTO applied_keys (key, seq) VALUES (?, ?)').run(req.key, seq);
      return { seq, applied };
    })();
  }

  /** Requests recorded so far, per discipline. */
  countsByDiscipline(): Record<Discipline, number> {
    const rows = this.db.prepare('SELECT discipline, COUNT(*) AS n FROM requests GROUP BY discipline').all() as {
      discipline: string;
      n: number;
    }[];
    const out = Object.fromEntries(DISCIPLINES.map((d) => [d, 0])) as Record<Discipline, number>;
    for (const r of rows) if (r.discipline in out) out[r.discipline as Discipline] = r.n;
    return out;
  }

  /** Mark `incarnation` a clone's (run/effects-clone.ts): its rows are accounted apart from the session's. */
  markClone(incarnation: string): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS clones (incarnation TEXT PRIMARY KEY)');
    this.db.prepare('INSERT OR IGNORE INTO clones (incarnation) VALUES (?)').run(incarnation);
  }

  /** The incarnations marked as clones (none in a ledger that never had one). */
  clones(): Set<string> {
    const has = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'clones'").get();
    if (has === undefined) return new Set();
    const rows = this.db.prepare('SELECT incarnation FROM clones').all() as { incarnation: string }[];
    return new Set(rows.map((r) => r.incarnation));
  }

  /** Every row of `session`, in arrival order (all sessions when absent). */
  rows(session?: string): LedgerRow[] {
    const sql = 'SELECT * FROM requests' + (session === undefined ? '' : ' WHERE session = ?') + ' ORDER BY seq';
    const stmt = this.db.prepare(sql);
    const raw = (session === undefined ? stmt.all() : stmt.all(session)) as Record<string, unknown>[];
    return raw.map((r) => this.row(r));
  }

  private row(r: Record<string, unknown>): LedgerRow {
    const discipline = r.discipline as Discipline;
    if (!DISCIPLINES.includes(discipline))
      throw damaged(this.file, `is damaged: row ${String(r.seq)} has discipline ${String(r.discipline)}`);
    return {
      seq: Number(r.seq),
      session: String(r.session),
      incarnation: String(r.incarnation),
      effect: String(r.effect),
      discipline,
      key: typeof r.key === 'string' ? r.key : null,
      step: Number(r.step),
      arrivedMs: Number(r.arrived_ms),
      applied: r.applied === 1,
      accounted: r.accounted === 1,
    };
  }

  /** Mark rows as counted by a journaled accounting (each row is counted once). */
  markAccounted(seqs: readonly number[]): void {
    const stmt = this.db.prepare('UPDATE requests SET accounted = 1 WHERE seq = ?');
    this.db.transaction(() => {
      for (const s of seqs) stmt.run(s);
    })();
  }

  close(): void {
    this.db.close();
  }
}
