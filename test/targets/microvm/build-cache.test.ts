// `soak image prune`'s choice: entries of vm-images/build/ this checkout no longer uses go (other recipes, older or
// other-image templates, kernel trees, temp folders of dead builds); current entries, a live build's temp folder and
// anything it cannot classify stay.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processStart } from '../../../harness/core/proc.js';
import { removeEntries, staleCodingEntries, staleEntries } from '../../../harness/targets/microvm/build-cache.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'buildcache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const digest = 'c'.repeat(64);
const templateJson = (imageHash: string | undefined, sha = true): string =>
  JSON.stringify({
    dir: '.',
    key: 'k',
    ram: 'ram.stream',
    nonce: 'n',
    ramBytes: 3,
    ...(imageHash !== undefined ? { imageHash } : {}),
    ...(sha ? { sha256: { ram: digest } } : {}),
    buildMs: 1,
  });

/** A temp folder's name as core/durable.ts makes it for `dest`, with maker `pid` started at `start`. */
const tempOf = (dest: string, pid: number, start: string | null): string =>
  `.${dest}.tmp-${pid}-${start ?? 'x'}-0123456789abcdef`;
const LIVE = tempOf('image-aaaa', 1, processStart(1)); // pid 1 runs: a build in progress
const RECYCLED = tempOf('template-aaaa', 1, '1'); // pid 1 runs, but not since tick 1: its maker is gone

/** A build folder with one of each kind of entry, and the PID of a process that has exited. */
function buildDir(): { dir: string; deadPid: number } {
  const dir = mkdtempSync(path.join(root, 'build-'));
  const folder = (name: string, files: Record<string, string> = { f: 'x' }): void => {
    mkdirSync(path.join(dir, name));
    for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, name, f), text);
  };
  const deadPid = spawnSync('true').pid;
  folder('image-aaaa');
  folder('image-bbbb', { vmlinuz: '0123456789' });
  folder(tempOf('image-aaaa', deadPid, '12345'));
  folder(LIVE);
  folder(RECYCLED);
  folder('image-aaaa.tmp-old123');
  utimesSync(
    path.join(dir, 'image-aaaa.tmp-old123'),
    new Date(Date.now() - 2 * 3600e3),
    new Date(Date.now() - 2 * 3600e3),
  );
  folder('template-aaaa.tmp-fresh1');
  folder('template-1111', { 'template.json': templateJson('img-now') });
  folder('template-2222', { 'template.json': templateJson('img-old') });
  folder('template-3333', { 'template.json': templateJson(undefined, false) });
  folder('template-4444', { 'ram.stream': 'RAM' });
  folder('template-5555', { 'template.json': '{"torn' });
  folder('kroot-linux-image-6.1.0-57-cloud-amd64');
  folder('kroot-linux-image-6.1.0-50-cloud-amd64');
  folder(tempOf('kroot-linux-image-6.1.0-57-cloud-amd64', deadPid, '12345'));
  folder('deb');
  folder('something-else');
  writeFileSync(path.join(dir, 'host-tsc.json'), '{}');
  return { dir, deadPid };
}

const current = {
  recipeHash: 'aaaa',
  image: { hash: 'img-now', kernelPackage: 'linux-image-6.1.0-57-cloud-amd64' },
};

describe('soak image prune: what goes', () => {
  it('lists stale entries with a reason and their size, and keeps current, live and unknown ones', () => {
    const { dir, deadPid } = buildDir();
    const stale = staleEntries(dir, current);
    const names = stale.map((e) => e.name);
    expect([...names].sort()).toEqual(
      [
        'image-bbbb',
        'image-aaaa.tmp-old123',
        tempOf('image-aaaa', deadPid, '12345'),
        RECYCLED,
        'kroot-linux-image-6.1.0-50-cloud-amd64',
        tempOf('kroot-linux-image-6.1.0-57-cloud-amd64', deadPid, '12345'),
        'template-2222',
        'template-3333',
        'template-4444',
        'template-5555',
      ].sort(),
    );
    expect(stale.find((e) => e.name === 'image-bbbb')).toMatchObject({ bytes: 10, why: 'built from another recipe' });
    expect(stale.find((e) => e.name === 'template-2222')?.why).toBe('built from another guest image');
    expect(stale.find((e) => e.name === 'template-3333')?.why).toMatch(/older template format/);
    expect(stale.find((e) => e.name === 'image-aaaa.tmp-old123')?.why).toMatch(/2 h old/);
    expect(stale.find((e) => e.name === RECYCLED)?.why).toBe('a build left behind (process 1 is gone)');
    for (const kept of ['image-aaaa', LIVE, 'template-aaaa.tmp-fresh1', 'template-1111', 'deb'])
      expect(names).not.toContain(kept);

    removeEntries(dir, stale);
    for (const e of stale) expect(existsSync(path.join(dir, e.name))).toBe(false);
    for (const kept of ['image-aaaa', 'template-1111', 'kroot-linux-image-6.1.0-57-cloud-amd64', 'host-tsc.json'])
      expect(existsSync(path.join(dir, kept))).toBe(true);
    expect(staleEntries(dir, current)).toEqual([]);
  });

  it('with no current image built, keeps every readable template and kernel tree', () => {
    const names = staleEntries(buildDir().dir, { recipeHash: 'aaaa' }).map((e) => e.name);
    for (const kept of ['template-1111', 'template-2222', 'kroot-linux-image-6.1.0-50-cloud-amd64'])
      expect(names).not.toContain(kept);
    expect(names).toContain('template-3333');
  });

  it('finds nothing in a missing folder', () => {
    expect(staleEntries(path.join(root, 'nope'), current)).toEqual([]);
  });
});

describe('soak image prune: coding workload images in the current image folder', () => {
  /** An image folder with the base image, coding images of two recipes, coding builds dead and live, and a stray file. */
  function imageDir(): { dir: string; deadPid: number } {
    const build = mkdtempSync(path.join(root, 'build-'));
    const dir = path.join(build, 'image-aaaa');
    mkdirSync(dir);
    const deadPid = spawnSync('true').pid;
    for (const f of ['vmlinuz', 'initramfs.cpio', 'initramfs-coding-1111.cpio', 'coding-1111.json', 'notes.txt'])
      writeFileSync(path.join(dir, f), 'x');
    writeFileSync(path.join(dir, 'initramfs-coding-2222.cpio'), 'old recipe');
    writeFileSync(path.join(dir, 'coding-2222.json'), '{}');
    for (const t of [tempOf('coding-1111', deadPid, '12345'), tempOf('coding-1111', 1, processStart(1))]) {
      mkdirSync(path.join(dir, t));
      writeFileSync(path.join(dir, t, 'overlay.cpio'), 'x');
    }
    return { dir, deadPid };
  }

  it('lists coding images of another recipe and dead coding builds, named from the build folder; keeps the rest', () => {
    const { dir, deadPid } = imageDir();
    const stale = staleCodingEntries(dir, '1111');
    expect(stale.map((e) => e.name).sort()).toEqual(
      [
        'image-aaaa/coding-2222.json',
        'image-aaaa/initramfs-coding-2222.cpio',
        `image-aaaa/${tempOf('coding-1111', deadPid, '12345')}`,
      ].sort(),
    );
    expect(stale.find((e) => e.name.endsWith('2222.cpio'))).toMatchObject({
      bytes: 10,
      why: 'a coding workload image of another recipe',
    });
    removeEntries(path.dirname(dir), stale);
    for (const kept of ['vmlinuz', 'initramfs.cpio', 'initramfs-coding-1111.cpio', 'coding-1111.json', 'notes.txt'])
      expect(existsSync(path.join(dir, kept))).toBe(true);
    expect(staleCodingEntries(dir, '1111')).toEqual([]);
  });

  it('without a current key (no compiler installed) removes only dead builds', () => {
    const { dir, deadPid } = imageDir();
    expect(staleCodingEntries(dir, undefined).map((e) => e.name)).toEqual([
      `image-aaaa/${tempOf('coding-1111', deadPid, '12345')}`,
    ]);
    expect(staleCodingEntries(path.join(root, 'nope'), '1111')).toEqual([]);
  });
});
