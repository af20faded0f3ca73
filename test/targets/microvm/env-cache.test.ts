// The session's guest-environment cache: a later host takes what the first one saved, while QEMU's binary, the image
// files and the host boot are the same; a changed image file (or a different ask) makes it resolve again.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ENV_CACHE_FILE, readSessionEnv, sessionEnvKey } from '../../../harness/targets/microvm/env-cache.js';
import type { GuestEnv } from '../../../harness/targets/microvm/env.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'env-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kernel = path.join(dir, 'vmlinuz');
const initramfs = path.join(dir, 'initramfs.cpio');
writeFileSync(kernel, 'k');
writeFileSync(initramfs, 'i');
const env: GuestEnv = {
  image: { kernel, initramfs, hash: 'a'.repeat(64), kernelPackage: 'linux-image-test' },
  qemuVersion: 'planted-7.2',
  accel: { accel: 'tcg', reason: 'forced' },
  tscKhz: 2_000_000,
};
const plant = (key: string): void => writeFileSync(path.join(dir, ENV_CACHE_FILE), JSON.stringify({ key, env }));

describe('readSessionEnv', () => {
  it('returns the saved environment while its key holds', () => {
    plant(sessionEnvKey('/bin/sh', 'tcg', env.image));
    expect(readSessionEnv(dir, '/bin/sh', 'tcg')).toEqual(env);
  });

  it('ignores it for another accelerator or binary', () => {
    plant(sessionEnvKey('/bin/sh', 'tcg', env.image));
    expect(readSessionEnv(dir, '/bin/sh', 'auto')).toBeUndefined();
    expect(readSessionEnv(dir, '/bin/true', 'tcg')).toBeUndefined();
  });

  it('ignores it once an image file changed (negative control)', () => {
    plant(sessionEnvKey('/bin/sh', 'tcg', env.image));
    appendFileSync(initramfs, 'changed');
    expect(readSessionEnv(dir, '/bin/sh', 'tcg')).toBeUndefined();
  });

  it('returns undefined without a cache file or with a damaged one', () => {
    const empty = mkdtempSync(path.join(dir, 'none-'));
    expect(readSessionEnv(empty, '/bin/sh', 'tcg')).toBeUndefined();
    writeFileSync(path.join(empty, ENV_CACHE_FILE), '{"key": ');
    expect(readSessionEnv(empty, '/bin/sh', 'tcg')).toBeUndefined();
  });
});
