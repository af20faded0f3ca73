// The lazy file system on real FUSE mounts: what was fsynced survives a crash, what was not is gone (data, creates,
// renames, unlinks, mkdir), and injected write errors reach the writer. Each "kept" case has its "gone" twin.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fsyncDir, writeFileAtomic } from '../../harness/core/durable.js';
import { fuseAvailable, LazyMount } from '../../harness/nemesis/lazyfs.js';

const noFuse = !fuseAvailable();
if (noFuse) console.warn('lazyfs tests skipped: /dev/fuse is absent (FUSE is needed for the lazy file system)');

/** Write `text` to `file` and fsync it (when `sync`). */
function write(file: string, text: string, sync: boolean, flags = 'w'): void {
  const fd = openSync(file, flags);
  try {
    writeSync(fd, text);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(noFuse)('lazyfs', () => {
  let root: string;
  let m: LazyMount;
  let mnt: string;
  const at = (...p: string[]): string => path.join(mnt, ...p);

  beforeEach(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'lazyfs-'));
    m = await LazyMount.mount(path.join(root, 'backing'), path.join(root, 'mnt'));
    mnt = m.mountpoint;
  }, 120_000);
  afterEach(async () => {
    await m.unmount();
    rmSync(root, { recursive: true, force: true });
  });

  it('a write without fsync is gone after a crash; the durable name stays, empty', async () => {
    write(at('a'), 'hello', true); // content durable
    fsyncDir(mnt); // name durable
    write(at('a'), 'HELLO world', false);
    expect(readFileSync(at('a'), 'utf8')).toBe('HELLO world');
    await m.crash();
    expect(readFileSync(at('a'), 'utf8')).toBe('hello');
  });

  it('a write with fsync is kept (control)', async () => {
    write(at('a'), 'hello', true);
    fsyncDir(mnt);
    write(at('a'), 'HELLO world', true);
    await m.crash();
    expect(readFileSync(at('a'), 'utf8')).toBe('HELLO world');
  });

  it('a created file whose folder was fsynced but not the file itself survives empty', async () => {
    write(at('n'), 'data', false);
    fsyncDir(mnt);
    await m.crash();
    expect(readFileSync(at('n'), 'utf8')).toBe('');
  });

  it('create + rename without a folder fsync: gone; with it: kept', async () => {
    mkdirSync(at('d'));
    fsyncDir(mnt);
    fsyncDir(at('d'));
    write(at('d', 'tmp1'), 'one', true);
    renameSync(at('d', 'tmp1'), at('d', 'one'));
    write(at('d', 'tmp2'), 'two', true);
    renameSync(at('d', 'tmp2'), at('d', 'two'));
    fsyncDir(at('d'));
    write(at('d', 'tmp3'), 'three', true);
    renameSync(at('d', 'tmp3'), at('d', 'three')); // no folder fsync after this one
    await m.crash();
    expect(readdirSync(at('d')).sort()).toEqual(['one', 'two']);
    expect(readFileSync(at('d', 'one'), 'utf8')).toBe('one');
    expect(readFileSync(at('d', 'two'), 'utf8')).toBe('two');
  });

  it('a rename over a durable file without a folder fsync brings the old file back', async () => {
    writeFileAtomic(at('m'), 'old');
    writeFileAtomic(at('m.new'), 'new');
    write(at('x'), 'new2', true);
    renameSync(at('x'), at('m')); // replaces m, folder not fsynced
    unlinkSync(at('m.new')); // folder not fsynced
    await m.crash();
    expect(readFileSync(at('m'), 'utf8')).toBe('old');
    expect(readFileSync(at('m.new'), 'utf8')).toBe('new');
    expect(readdirSync(mnt).sort()).toEqual(['m', 'm.new']);
  });

  it('mkdir without a parent fsync is gone (with what was written inside); rmdir without one is undone', async () => {
    mkdirSync(at('keep'));
    fsyncDir(mnt);
    mkdirSync(at('new'));
    writeFileAtomic(at('new', 'f'), 'inside'); // fsyncs the new folder, not its parent
    rmSync(at('keep'), { recursive: true });
    await m.crash();
    expect(existsSync(at('new'))).toBe(false);
    expect(existsSync(at('keep'))).toBe(true);
  });

  it('writeFileAtomic (fsync, rename, folder fsync) survives', async () => {
    writeFileAtomic(at('manifest'), 'v1');
    writeFileAtomic(at('manifest'), 'v2');
    await m.crash();
    expect(readFileSync(at('manifest'), 'utf8')).toBe('v2');
    expect(readdirSync(mnt)).toEqual(['manifest']);
  });

  it('an injected ENOSPC reaches the N-th write, and only that one', () => {
    m.failWrite(2, 'ENOSPC');
    write(at('f1'), 'one', false);
    expect(() => write(at('f2'), 'two', false)).toThrow(/ENOSPC/);
    write(at('f3'), 'three', false);
    expect(readFileSync(at('f3'), 'utf8')).toBe('three');
  });

  it('an injected EIO fails the write with EIO', () => {
    m.failWrite(1, 'EIO');
    expect(() => writeFileSync(at('f'), 'x')).toThrow(/EIO/);
  });
});
