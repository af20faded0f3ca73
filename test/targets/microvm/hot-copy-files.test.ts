// The hot copy's files without QEMU: named by seq before the commit (a kill after the manifest's commit still finds it),
// only the newest kept at commit; a part is served from its copy only when size and SHA-256 match the store's part digest, else (no copy, size, digest, a manifest without
// digests) from the store, with the reason; the test-only switch serves it unchecked; an overlapped part (hashed while
// QEMU loads it) is refused by its digest or a change of identity before the guest runs.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CheckpointSource } from '../../../harness/store/types.js';
import {
  commitHotCopy,
  demote,
  describeUse,
  HOT_COPY_UNCHECKED,
  hotCopyDir,
  hotSource,
  stageHotCopy,
} from '../../../harness/targets/microvm/hot-copy.js';

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'hot-files-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
const RAM = Buffer.from('ram stream of checkpoint 2');

/** A store stand-in for checkpoint 2: its part "ram" (size and digest as given), read back as STORED. */
function stored(digest: string | null = sha(RAM), size = RAM.length): CheckpointSource {
  const bytes = Buffer.from('from the store');
  return {
    seq: 2,
    step: 20,
    parts: () => ['microvm.json', 'ram'],
    get: () => Promise.resolve(bytes),
    stream: async function* () {
      await Promise.resolve();
      yield bytes;
    },
    writeFile: (_n, f) => writeFile(f, bytes),
    digest: () => digest ?? undefined, // null: a manifest without part digests
    size: () => size,
  };
}

async function putCopy(seq: number, bytes: Buffer): Promise<void> {
  const scratch = path.join(dir, 'scratch.ram');
  await writeFile(scratch, bytes);
  await stageHotCopy(path.join(dir, 'hot'), { ram: scratch, disk: path.join(dir, 'absent.qcow2') }, seq);
  expect(existsSync(scratch)).toBe(false); // moved, not copied
  await commitHotCopy(path.join(dir, 'hot'), seq);
}

describe('hot copy files', () => {
  it('names the copy by seq at commit, keeps only the newest, and drops a dead host pending folder', async () => {
    await mkdir(path.join(dir, 'hot', 'pending-1'), { recursive: true });
    await putCopy(1, Buffer.from('older'));
    await putCopy(2, RAM);
    expect(await readdir(path.join(dir, 'hot'))).toEqual(['0000000002']);
    expect(await readdir(path.join(dir, 'hot', '0000000002'))).toEqual(['ram']);
  });

  it('names the copy before the commit: a host killed after its manifest commit still leaves the copy', async () => {
    const hot = path.join(dir, 'hot');
    await putCopy(1, Buffer.from('older'));
    await writeFile(path.join(dir, 'scratch.ram'), RAM);
    await stageHotCopy(hot, { ram: path.join(dir, 'scratch.ram') }, 2);
    // killed here, after checkpoint 2's manifest was committed and before commitHotCopy ran: 2's copy is there
    expect((await readdir(hot)).sort()).toEqual(['0000000001', '0000000002']);
    expect(describeUse((await hotSource(hot, stored(), ['ram'], {})).use)).toBe('hot');
    // killed before the manifest commit: 1 is the newest committed, and its copy is still there
    const one = { ...stored(sha(Buffer.from('older')), 5), seq: 1 };
    expect(describeUse((await hotSource(hot, one, ['ram'], {})).use)).toBe('hot');
    // the next checkpoint given seq 2 replaces the uncommitted folder before its own commit
    await writeFile(path.join(dir, 'scratch.ram'), 'other');
    await stageHotCopy(hot, { ram: path.join(dir, 'scratch.ram') }, 2);
    expect((await readFile(path.join(hot, '0000000002', 'ram'))).toString()).toBe('other');
    await commitHotCopy(hot, 2);
    expect(await readdir(hot)).toEqual(['0000000002']);
  });

  it('serves a matching copy, and falls back with a reason on no copy, size, digest or no digest', async () => {
    const read = async (src: CheckpointSource): Promise<string> => {
      const { source, use } = await hotSource(path.join(dir, 'hot'), src, ['ram', 'disk'], {});
      expect((await source.get('ram')).toString()).toBe(use.hot.includes('ram') ? RAM.toString() : 'from the store');
      return describeUse(use);
    };
    expect(await read(stored())).toBe('store (ram: no hot copy of this checkpoint)');
    await putCopy(2, RAM);
    expect(await read(stored())).toBe('hot');
    expect(await read(stored(sha(RAM), RAM.length + 1))).toBe('store (ram: size differs)');
    expect(await read(stored(sha(Buffer.from('other'))))).toBe('store (ram: digest mismatch)');
    expect(await read(stored(null))).toBe('store (ram: the manifest has no part digest)');
  });

  it('negative control switch: with SOAK_TEST_HOT_COPY_UNCHECKED=1 a wrong copy is served', async () => {
    await putCopy(2, Buffer.from('a stale copy'));
    const { source, use } = await hotSource(path.join(dir, 'hot'), stored(), ['ram'], { [HOT_COPY_UNCHECKED]: '1' });
    expect(describeUse(use)).toBe('hot');
    expect((await source.get('ram')).toString()).toBe('a stale copy');
  });

  it('serves the verified file itself (stream, path for exec:cat), and says when it changed after its check', async () => {
    const hot = hotCopyDir(dir);
    await writeFile(path.join(dir, 'scratch.ram'), RAM);
    await stageHotCopy(hot, { ram: path.join(dir, 'scratch.ram') }, 2);
    await commitHotCopy(hot, 2);
    const served = await hotSource(hot, stored(), ['ram']);
    const file = served.files.get('ram')!;
    expect(file).toBe(path.join(hot, '0000000002', 'ram'));
    const chunks: Buffer[] = [];
    for await (const c of served.source.stream('ram')) chunks.push(Buffer.from(c));
    expect(Buffer.concat(chunks).equals(RAM)).toBe(true);
    expect(await served.changed()).toEqual([]);
    // Negative control: the same bytes written again between the check and QEMU's read still count as a change.
    await writeFile(file, RAM);
    expect(await served.changed()).toEqual(['ram']);
    await rm(file);
    expect(await served.changed()).toEqual(['ram']);
    const flipped = Buffer.from(RAM);
    flipped[0] = flipped[0]! ^ 1;
    await writeFile(path.join(dir, 'scratch.ram'), flipped);
    await stageHotCopy(hot, { ram: path.join(dir, 'scratch.ram') }, 2);
    await commitHotCopy(hot, 2);
    const refused = await hotSource(hot, stored(), ['ram']);
    expect(describeUse(refused.use)).toBe('store (ram: digest mismatch)');
    expect(refused.files.size).toBe(0);
  });

  it('an overlapped part passes the cheap checks at once; its refusal (digest, then identity) settles before cont', async () => {
    const hot = hotCopyDir(dir);
    const overlapped = async (bytes: Buffer) => {
      await putCopyIn(hot, bytes);
      return hotSource(hot, stored(), ['ram'], {}, ['ram']);
    };
    const good = await overlapped(RAM);
    expect(describeUse(good.use)).toBe('hot');
    expect(await good.refusal('ram')).toBeUndefined();
    // Negative control: a copy rewritten after its hash (same bytes) is refused by its identity.
    await writeFile(good.files.get('ram')!, RAM);
    expect(await good.refusal('ram')).toBe('changed after its check');
    const flipped = Buffer.from(RAM);
    flipped[3] = flipped[3]! ^ 1;
    const bad = await overlapped(flipped);
    expect(describeUse(bad.use)).toBe('hot'); // same size: only the digest, awaited before cont, refuses it
    expect(bad.files.get('ram')).toBeDefined();
    expect(await bad.refusal('ram')).toBe('digest mismatch');
    expect(describeUse(demote(bad.use, 'ram', 'digest mismatch'))).toBe('store (ram: digest mismatch)');
    expect(await bad.refusal('disk')).toBe('no hot copy of this part');
  });
});

async function putCopyIn(hot: string, bytes: Buffer): Promise<void> {
  await writeFile(path.join(dir, 'scratch.ram'), bytes);
  await stageHotCopy(hot, { ram: path.join(dir, 'scratch.ram') }, 2);
  await commitHotCopy(hot, 2);
}
