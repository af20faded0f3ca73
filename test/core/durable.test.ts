// Temp files never follow a planted symlink: writeFileAtomic (store manifests and pack indexes, the reports index)
// picks an unguessable temp name and creates it with O_EXCL; a symlink at the old predictable name, or at the file
// itself, leaves the file outside untouched, and a failed write leaves no temp file behind. Publishing a folder (reports,
// merged runs, guest images, templates) builds it in a temp folder beside it and renames it whole into place.
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
import {
  makeTempDir,
  publishDir,
  publishFile,
  tempMaker,
  tempPathFor,
  writeFileAtomic,
} from '../../harness/core/durable.js';
import { processStart, sameProcessAlive } from '../../harness/core/proc.js';
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
      expect(path.basename(n)).toMatch(
        new RegExp(`^\\.a\\.idx\\.tmp-${process.pid}-${processStart(process.pid)}-[0-9a-f]{16}$`),
      );
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

describe('temp names record their maker', () => {
  it('tempMaker reads back this process, and a dead or recycled maker is gone by the same-process rule', () => {
    const mine = tempMaker(path.basename(tempPathFor(path.join(dir, 'x'))));
    expect(mine).toEqual({ pid: process.pid, start: processStart(process.pid) });
    expect(sameProcessAlive(mine!)).toBe(true);
    // the same live PID with another start time is a recycled PID: another process, so its temp is a dead maker's
    const recycled = tempMaker(`.x.tmp-${process.pid}-1-0123456789abcdef`);
    expect(recycled).toEqual({ pid: process.pid, start: '1' });
    expect(sameProcessAlive(recycled!)).toBe(false);
    for (const odd of ['.x.tmp-0123456789abcdef', 'x.tmp-12-abc', '.x.tmp-12-34-0123'])
      expect(tempMaker(odd)).toBeNull();
  });
});

describe('publishing a folder', () => {
  const build = (dest: string, files: Record<string, string>): string => {
    const tmp = makeTempDir(dest);
    expect(path.dirname(tmp)).toBe(path.dirname(dest));
    for (const [f, text] of Object.entries(files)) writeFileSync(path.join(tmp, f), text);
    return tmp;
  };

  it('makeTempDir makes a fresh folder beside dest each time, never one that exists', () => {
    const dest = path.join(dir, 'report');
    const names = new Set(Array.from({ length: 20 }, () => makeTempDir(dest)));
    expect(names.size).toBe(20);
    expect(readdirSync(dir)).toHaveLength(20);
  });

  it('renames the whole folder into place; `number` moves past taken names and never touches them', () => {
    const dest = path.join(dir, '2026-01-01-x');
    expect(publishDir(build(dest, { a: '1' }), dest, 'number')).toBe(dest);
    expect(publishDir(build(dest, { a: '2' }), dest, 'number')).toBe(`${dest}-2`);
    writeFileSync(`${dest}-3`, 'a file, not a report');
    expect(publishDir(build(dest, { a: '4' }), dest, 'number')).toBe(`${dest}-4`);
    expect(readFileSync(path.join(dest, 'a'), 'utf8')).toBe('1');
    expect(readFileSync(`${dest}-3`, 'utf8')).toBe('a file, not a report');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  it('`refuse` throws EEXIST and `yield` returns null, each leaving the existing folder and no temp folder', () => {
    const dest = path.join(dir, 'merged');
    mkdirSync(dest);
    writeFileSync(path.join(dest, 'journal.ndjson'), 'theirs');
    expect(() => publishDir(build(dest, { 'journal.ndjson': 'ours' }), dest, 'refuse')).toThrow(
      expect.objectContaining({ code: 'EEXIST' }),
    );
    expect(publishDir(build(dest, { 'journal.ndjson': 'ours' }), dest, 'yield')).toBeNull();
    expect(readFileSync(path.join(dest, 'journal.ndjson'), 'utf8')).toBe('theirs');
    expect(readdirSync(dir)).toEqual(['merged']);
  });

  it('publishFile renames a finished temp file into place (replacing the old one) and leaves no temp', () => {
    const dest = path.join(dir, 'soak-agent');
    writeFileSync(dest, 'old');
    const tmp = tempPathFor(dest);
    writeFileSync(tmp, 'new');
    publishFile(tmp, dest);
    expect(readFileSync(dest, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['soak-agent']);
  });
});
