// The effect ledger (issue 34, item 1): a real SQLite file and a real TCP server on 127.0.0.1. A request is applied
// once per idempotency key and acknowledged only once committed (a reader opening the file afterwards sees it); a
// request without the run's token, or malformed, is refused; a missing, non-SQLite, damaged or foreign file is one
// line naming it (exit 3), never an empty ledger.
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Socket } from 'node:net';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../harness/core/errors.js';
import { LedgerClient } from '../../harness/effects/client.js';
import { EffectLedger, ledgerFile } from '../../harness/effects/ledger.js';
import { LedgerDb, type EffectRequest } from '../../harness/effects/ledger-db.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'soak-ledger-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const runDir = (): string => path.join(tmp, `run${++n}`);
const req = (over: Partial<EffectRequest> = {}): EffectRequest => ({
  session: 's1',
  incarnation: 'i1',
  effect: 'step-key:5',
  discipline: 'step-key',
  key: 'k5',
  step: 5,
  ...over,
});

/** Send raw lines to the ledger and read one reply line per line. */
async function raw(address: string, lines: string[]): Promise<string[]> {
  const [host, port] = address.split(':');
  const s = new Socket();
  await new Promise<void>((resolve) => s.connect(Number(port), host!, resolve));
  const replies: string[] = [];
  let buf = '';
  const done = new Promise<void>((resolve) =>
    s.on('data', (c) => {
      buf += c.toString();
      while (buf.includes('\n')) {
        replies.push(buf.slice(0, buf.indexOf('\n')));
        buf = buf.slice(buf.indexOf('\n') + 1);
      }
      if (replies.length === lines.length) resolve();
    }),
  );
  s.write(lines.map((l) => `${l}\n`).join(''));
  await done;
  s.destroy();
  return replies;
}

describe('effect ledger database', () => {
  it('applies a key once, deduplicates it after, always applies a keyless request', () => {
    const file = path.join(tmp, 'a.sqlite');
    const db = LedgerDb.create(file);
    expect(db.record(req(), 1).applied).toBe(true);
    expect(db.record(req({ incarnation: 'i2' }), 2).applied).toBe(false);
    expect(db.record(req({ discipline: 'no-key', effect: 'no-key:5', key: null }), 3).applied).toBe(true);
    expect(db.record(req({ discipline: 'no-key', effect: 'no-key:5', key: null }), 4).applied).toBe(true);
    db.close();
    const again = LedgerDb.open(file, { readonly: true });
    expect(again.rows('s1').map((r) => [r.seq, r.applied])).toEqual([
      [1, true],
      [2, false],
      [3, true],
      [4, true],
    ]);
    again.close();
  });

  it('refuses a missing, non-SQLite, damaged or foreign file with one line naming it (exit 3)', () => {
    const missing = path.join(tmp, 'none.sqlite');
    const garbage = path.join(tmp, 'garbage.sqlite');
    writeFileSync(garbage, 'this is not a database\n'.repeat(200));
    const foreign = path.join(tmp, 'foreign.sqlite');
    new Database(foreign).exec('CREATE TABLE t (x)');
    const torn = path.join(tmp, 'torn.sqlite');
    const db = LedgerDb.create(torn);
    for (let i = 0; i < 2000; i++) db.record(req({ key: `k${i}`, step: i }), i);
    db.close();
    const bytes = Buffer.alloc(4096, 0x5a); // a page in the middle overwritten with garbage, as a bad disk would
    const h = openSync(torn, 'r+');
    writeSync(h, bytes, 0, bytes.length, 8192);
    closeSync(h);
    for (const [file, why] of [
      [missing, 'is missing'],
      [garbage, 'is damaged'],
      [foreign, 'is damaged'],
      [torn, 'is damaged'],
    ] as const) {
      let err: unknown;
      try {
        LedgerDb.open(file).close();
      } catch (e) {
        err = e;
      }
      expect(err, file).toBeInstanceOf(InputError);
      const msg = (err as InputError).message;
      expect(msg).toContain(`effect ledger ${file} ${why}`);
      expect(msg).not.toContain('\n');
      expect((err as InputError).exitCode).toBe(3);
    }
  });
});

describe('effect ledger service', () => {
  it('acknowledges only committed requests, refuses a wrong token or a malformed line', async () => {
    const dir = runDir();
    mkdirSync(dir);
    LedgerDb.create(ledgerFile(dir)).close();
    const ledger = await EffectLedger.start(dir);
    try {
      expect(ledger.address).toMatch(/^127\.0\.0\.1:\d+$/);
      const client = new LedgerClient(ledger.address, ledger.token);
      const first = await client.emit(req());
      const second = await client.emit(req({ incarnation: 'i2' }));
      expect([first.applied, second.applied]).toEqual([true, false]);
      // acknowledged means committed: another connection to the file sees both rows now
      const reader = LedgerDb.open(ledgerFile(dir), { readonly: true });
      expect(reader.rows('s1').map((r) => r.seq)).toEqual([first.seq, second.seq]);
      reader.close();
      const replies = await raw(ledger.address, [
        JSON.stringify({ token: 'f'.repeat(32), ...req() }),
        'not json',
        JSON.stringify({ token: ledger.token, ...req({ step: -1 }) }),
        JSON.stringify({ token: ledger.token, ...req({ discipline: 'maybe' as 'no-key' }) }),
      ]);
      expect(replies.map((r) => JSON.parse(r) as { ok: boolean; error?: string })).toEqual([
        { ok: false, error: 'token: refused' },
        { ok: false, error: 'not JSON' },
        { ok: false, error: 'step: expected an integer >= 0' },
        { ok: false, error: 'discipline: expected one of step-key, random-key, no-key' },
      ]);
      await expect(new LedgerClient(ledger.address, 'f'.repeat(32)).emit(req())).rejects.toThrow(/token: refused/);
      expect(ledger.rows('s1')).toHaveLength(2); // nothing refused was recorded
    } finally {
      await ledger.close();
    }
  });
});
