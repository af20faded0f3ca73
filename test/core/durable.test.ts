// Temp files never follow a planted symlink: writeFileAtomic (store manifests and pack indexes, the reports index)
// picks an unguessable temp name and creates it with O_EXCL; a symlink at the old predictable name, or at the file
// itself, leaves the file outside untouched, and a failed write leaves no temp file behind.
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempPathFor, writeFileAtomic } from '../../harness/core/durable.js';
import { writeReportsIndex } from '../../harness/report/write.js';

let root: string;
let dir: string;
let outside: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'soak-durable-'));
  dir = path.join(root, 'inside');
  mkdirSync(dir);
  outside = path.join(root, 'outside.txt');
  writeFileSync(outside, 'precious\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Plant a symlink to the outside file at the temp name the old writeFileAtomic used for `file` (pid-based). */
function plantOldTempLink(file: string): string {
  const link = path.join(path.dirname(file), `.${path.basename(file)}.tmp-${process.pid}`);
  symlinkSync(outside, link);
  return link;
}

describe('writeFileAtomic', () => {
  it('does not write through a symlink planted at the old predictable temp name', () => {
    const file = path.join(dir, 'manifest.json');
    const link = plantOldTempLink(file);
    writeFileAtomic(file, 'new content\n');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(readFileSync(file, 'utf8')).toBe('new content\n');
    expect(lstatSync(link).isSymbolicLink()).toBe(true); // left as it was, not consumed by the rename
  });

  it('replaces a symlink at the file itself instead of writing through it', () => {
    const file = path.join(dir, 'index.html');
    symlinkSync(outside, file);
    writeFileAtomic(file, 'page\n');
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(lstatSync(file).isFile()).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('page\n');
  });

  it('fails cleanly, leaving no temp file, when the rename cannot happen', () => {
    const file = path.join(dir, 'taken');
    mkdirSync(file);
    writeFileSync(path.join(file, 'x'), 'x'); // a non-empty directory cannot be renamed over
    expect(() => writeFileAtomic(file, 'data')).toThrow();
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('draws a fresh, unguessable temp name beside the file each time, with the marker store gc sweeps', () => {
    const file = path.join(dir, 'a.idx');
    const names = new Set(Array.from({ length: 100 }, () => tempPathFor(file)));
    expect(names.size).toBe(100);
    for (const n of names) {
      expect(path.dirname(n)).toBe(dir);
      expect(path.basename(n)).toMatch(/^\.a\.idx\.tmp-[0-9a-f]{16}$/);
    }
  });
});

describe('soak report: the reports index', () => {
  it('is written without touching a file outside the reports folder through a planted symlink', async () => {
    const link = plantOldTempLink(path.join(dir, 'index.html'));
    const index = await writeReportsIndex(dir);
    expect(readFileSync(outside, 'utf8')).toBe('precious\n');
    expect(readFileSync(index, 'utf8')).toContain('<html');
    expect(existsSync(link)).toBe(true);
  });
});
