// A lock file survives a power loss whole (issue 17): taken through writeFileAtomic, it is either there and readable or
// gone. Its twin: the old way (write + rename, no fsync) leaves an empty file once anything fsyncs locks/, which reads
// as an unreadable lock that is never stale and would block the store. Real lazyfs mounts; skipped without /dev/fuse.
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsyncDir, TEST_NO_FSYNC_BEFORE_RENAME } from '../../harness/core/durable.js';
import { fuseAvailable, LazyMount } from '../../harness/nemesis/lazyfs.js';
import { LOCKS_DIR, readLocks, StoreLock } from '../../harness/store/lock.js';

describe.skipIf(!fuseAvailable())('store lock across a power loss', () => {
  let root: string;
  let m: LazyMount;
  beforeEach(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'soak-lock-pl-'));
    m = await LazyMount.mount(path.join(root, 'backing'), path.join(root, 'mnt'));
  }, 120_000);
  afterEach(async () => {
    await m.unmount();
    rmSync(root, { recursive: true, force: true });
  });

  it('a lock taken before the power loss is still readable after it', async () => {
    const lock = StoreLock.acquire(m.mountpoint, 'writer', 'test');
    await m.crash();
    const found = readLocks(m.mountpoint);
    expect(found.map((l) => l.file)).toEqual([lock.file]);
    expect(found[0]!.body).toMatchObject({ kind: 'writer', pid: process.pid, purpose: 'test' });
  });

  it('and under the test-only no-fsync store build (its switch spares lock files)', async () => {
    process.env[TEST_NO_FSYNC_BEFORE_RENAME] = '1';
    try {
      StoreLock.acquire(m.mountpoint, 'writer', 'test');
    } finally {
      Reflect.deleteProperty(process.env, TEST_NO_FSYNC_BEFORE_RENAME);
    }
    await m.crash();
    expect(readLocks(m.mountpoint)[0]?.body).toMatchObject({ kind: 'writer', pid: process.pid });
  });

  it('twin: a lock written and renamed without fsync comes back empty, an unreadable lock', async () => {
    StoreLock.acquire(m.mountpoint, 'shared', 'makes locks/ durable');
    const file = path.join(m.mountpoint, LOCKS_DIR, `writer-${process.pid}-old.json`);
    writeFileSync(
      `${file}.tmp`,
      JSON.stringify({ kind: 'writer', pid: process.pid, start: null, purpose: 'x', at: '' }),
    );
    renameSync(`${file}.tmp`, file);
    fsyncDir(path.dirname(file)); // anything that fsyncs locks/ (another taker) makes the name durable, not the data
    await m.crash();
    expect(readLocks(m.mountpoint).find((l) => l.file === file)?.body).toBeNull();
  });
});
