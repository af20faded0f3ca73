// A chunk hash-checked once in a read is not hashed again (a repeated page, a delta's base), and that never hides a
// corrupt chunk: a byte flipped on disk after a read is still caught by verify and by a freshly opened store.
import { closeSync, mkdtempSync, openSync, readdirSync, readSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IntegrityError } from '../../../harness/core/errors.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-verified-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const page = (fill: number): Buffer => Buffer.alloc(4096, fill);

describe('verified-chunk cache', () => {
  it('a repeated page reads back right; a flipped byte after the read is still caught (negative control)', async () => {
    const s = Store.open(dir, { compression: 'none' });
    const w = s.begin(1);
    const data = Buffer.concat([page(1), page(2), page(1), page(1), page(3)]);
    await w.put('ram', data);
    const m = w.commit();
    expect((await s.reader(m).get('ram')).equals(data)).toBe(true);
    // flip a byte of the first stored page (page(1)) on disk
    const pack = readdirSync(path.join(dir, 'packs')).find((f) => f.endsWith('.pack'))!;
    const fd = openSync(path.join(dir, 'packs', pack), 'r+');
    const one = Buffer.alloc(1);
    readSync(fd, one, 0, 1, 10);
    writeSync(fd, Buffer.from([one[0]! ^ 1]), 0, 1, 10);
    closeSync(fd);
    const problems = verifyStore(s).problems;
    expect([...new Set(problems.map((p) => p.chunk))]).toEqual([m.parts[0]!.chunks[0]]); // each of its 3 places
    s.close();
    const fresh = Store.open(dir);
    await expect(fresh.reader(m).get('ram')).rejects.toBeInstanceOf(IntegrityError);
    fresh.close();
  });
});
