// The guest workspace disk: an ext4 filesystem in qcow2, made with fast_commit unless the option turns it off.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDisk } from '../../../harness/targets/guest/disk.js';
import { parseMicrovmOptions } from '../../../harness/targets/microvm/options.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-disk-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The filesystem features of a qcow2 disk (converted to raw, read by dumpe2fs). */
async function features(qcow2: string): Promise<string[]> {
  const raw = `${qcow2}.raw`;
  await execa('qemu-img', ['convert', '-f', 'qcow2', '-O', 'raw', qcow2, raw]);
  const { stdout } = await execa('dumpe2fs', ['-h', raw]);
  return /^Filesystem features:\s*(.*)$/m.exec(stdout)?.[1]?.split(/\s+/) ?? [];
}

describe('createDisk', () => {
  it('makes ext4 with fast_commit by default (diskFastCommit) and plain jbd2 when it is off', async () => {
    expect(parseMicrovmOptions({}).diskFastCommit).toBe(true);
    await createDisk(path.join(dir, 'fc.qcow2'), 16);
    await createDisk(path.join(dir, 'plain.qcow2'), 16, false);
    const fc = await features(path.join(dir, 'fc.qcow2'));
    const plain = await features(path.join(dir, 'plain.qcow2'));
    expect(fc).toContain('has_journal');
    expect(fc).toContain('fast_commit');
    expect(plain).toContain('has_journal');
    expect(plain).not.toContain('fast_commit');
  });
});
