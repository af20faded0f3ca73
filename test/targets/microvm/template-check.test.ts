// A template snapshot's files are checked against the SHA-256 its template.json records (no QEMU needed): a flipped
// byte, a missing file, a damaged template.json and a file rewritten after its check are each refused by name; a build
// records the digests and sweeps the temp folders of dead builders.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TargetError } from '../../../harness/core/errors.js';
import { processStart } from '../../../harness/core/proc.js';
import { sha256File } from '../../../harness/targets/guest/files.js';
import { assertTemplateUnchanged, verifyTemplate } from '../../../harness/targets/microvm/template-check.js';
import {
  ensureTemplate,
  parseTemplateJson,
  templateDir,
  type TemplateSnapshot,
} from '../../../harness/targets/microvm/template.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'tplcheck-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
let n = 0;

/** A template folder with a RAM file of 3 MiB (more than one read buffer) and a disk file, and its snapshot. */
function fakeTemplate(): TemplateSnapshot {
  const dir = path.join(root, `t${n++}`);
  mkdirSync(dir);
  const ram = Buffer.alloc(3 * (1 << 20) + 5, 7);
  ram.write('ram stream', 100);
  const disk = Buffer.from('qcow2 image');
  writeFileSync(path.join(dir, 'ram.stream'), ram);
  writeFileSync(path.join(dir, 'disk.qcow2'), disk);
  return {
    dir,
    key: 'k',
    imageHash: 'img',
    ram: path.join(dir, 'ram.stream'),
    disk: path.join(dir, 'disk.qcow2'),
    nonce: 'n',
    ramBytes: ram.length,
    sha256: { ram: sha(ram), disk: sha(disk) },
    buildMs: 1,
  };
}

describe('template files checked against template.json', () => {
  it('hashes a file as one SHA-256 across its reads', async () => {
    const t = fakeTemplate();
    expect(await sha256File(t.ram)).toBe(sha(readFileSync(t.ram)));
  });

  it('passes intact files and refuses a flipped byte by name (and a missing file)', async () => {
    const ok = fakeTemplate();
    await expect(verifyTemplate(ok)).resolves.toBeUndefined();
    await expect(assertTemplateUnchanged(ok)).resolves.toBeUndefined();

    const flipped = fakeTemplate();
    const bytes = readFileSync(flipped.ram);
    const at = 2 * (1 << 20) + 17;
    bytes.writeUInt8(bytes.readUInt8(at) ^ 0x01, at);
    writeFileSync(flipped.ram, bytes);
    await expect(verifyTemplate(flipped)).rejects.toThrow(
      new RegExp(`${flipped.ram}.*fails its SHA-256 check.*remove ${flipped.dir}`),
    );
    await expect(verifyTemplate(flipped)).rejects.toBeInstanceOf(TargetError);

    const diskFlipped = fakeTemplate();
    writeFileSync(diskFlipped.disk!, 'qcow2 imagf');
    await expect(verifyTemplate(diskFlipped)).rejects.toThrow(/disk\.qcow2 fails its SHA-256 check/);

    const gone = fakeTemplate();
    rmSync(gone.ram);
    await expect(verifyTemplate(gone)).rejects.toThrow(/ram\.stream is missing/);
  });

  it('refuses a file rewritten after its check, even with the same bytes (checked before the guest runs)', async () => {
    const t = fakeTemplate();
    await verifyTemplate(t);
    writeFileSync(t.ram, readFileSync(t.ram));
    await expect(assertTemplateUnchanged(t)).rejects.toThrow(/ram\.stream changed after its check/);
    // a file never checked in this process is not taken as unchanged either
    await expect(assertTemplateUnchanged(fakeTemplate())).rejects.toThrow(/changed after its check/);
  });
});

describe('template.json', () => {
  const good = {
    dir: '.',
    key: 'k',
    imageHash: 'img',
    ram: 'ram.stream',
    disk: 'disk.qcow2',
    nonce: 'n',
    ramBytes: 1,
    buildMs: 1,
  };
  const digests = { ram: 'a'.repeat(64), disk: 'b'.repeat(64) };

  it('reads a well-formed file', () => {
    expect(parseTemplateJson('/x/template.json', JSON.stringify({ ...good, sha256: digests })).ram).toBe('ram.stream');
  });

  it.each([
    ['torn JSON', '{"dir": ".", "ram": "ram.str', /not JSON/],
    ['no digests (an older template)', JSON.stringify(good), /no SHA-256/],
    ['a disk without its digest', JSON.stringify({ ...good, sha256: { ram: digests.ram } }), /no SHA-256/],
    ['a path outside its folder', JSON.stringify({ ...good, ram: '../../etc/passwd', sha256: digests }), /file names/],
    ['null', 'null', /not an object/],
  ])('names the file when it is damaged: %s', (_what, text, why) => {
    expect(() => parseTemplateJson('/x/template.json', text)).toThrow(/\/x\/template\.json is damaged/);
    expect(() => parseTemplateJson('/x/template.json', text)).toThrow(why);
  });
});

describe('building a template', () => {
  const key = `test-${process.pid}-${Date.now()}`;
  const out = templateDir(key);
  const temp = (pid: number, start: string | null): string =>
    path.join(path.dirname(out), `.${path.basename(out)}.tmp-${pid}-${start ?? 'x'}-0123456789abcdef`);
  const live = temp(1, processStart(1)); // pid 1 is alive: a build in progress is left alone
  afterAll(() => {
    for (const e of [out, live]) rmSync(e, { recursive: true, force: true });
  });

  it('records each file SHA-256 and sweeps the temp folders of builders that died', async () => {
    mkdirSync(path.dirname(out), { recursive: true });
    const deadPid = spawnSync('true').pid;
    const dead = temp(deadPid, '12345');
    const recycled = temp(1, '1'); // pid 1 runs, but is not the process that started at tick 1
    for (const d of [dead, live, recycled]) mkdirSync(d);
    const t = await ensureTemplate(key, 'img', (tmp) => {
      expect(path.basename(tmp)).toMatch(new RegExp(`\\.tmp-${process.pid}-${processStart(process.pid)}-`));
      writeFileSync(path.join(tmp, 'ram.stream'), 'RAM');
      writeFileSync(path.join(tmp, 'disk.qcow2'), 'DISK');
      return Promise.resolve({
        nonce: 'n',
        ramBytes: 3,
        ram: path.join(tmp, 'ram.stream'),
        disk: path.join(tmp, 'disk.qcow2'),
      });
    });
    expect(t.imageHash).toBe('img');
    expect(t.sha256).toEqual({ ram: sha(Buffer.from('RAM')), disk: sha(Buffer.from('DISK')) });
    await expect(verifyTemplate(t)).resolves.toBeUndefined();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(recycled)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});
