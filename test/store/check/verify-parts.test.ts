// `soak store verify` checks each part's whole-part SHA-256 by rebuilding the part (`partDigests`, on by default on
// the command line, `--no-part-digests` skips it). Negative control: a manifest (self-check recomputed) whose part
// records another part's digest passes the chunk-by-chunk check and is caught only by the part digest check.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ListedManifestFile,
  manifestFileName,
  parseManifest,
  serializeManifest,
} from '../../../harness/store/manifest.js';
import { Store } from '../../../harness/store/store.js';
import { verifyStore } from '../../../harness/store/check/verify.js';
import { keystream } from '../../fixtures/store-content.mjs';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'soak-verify-parts-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('verify: whole-part digests', () => {
  it('passes a sound store; a part recording another digest is caught only with partDigests', async () => {
    const store = Store.open(dir);
    const w = store.begin(1);
    await w.put('disk', keystream('disk', 5 * 4096 + 3));
    await w.put('cdc', keystream('cdc', 70_000), { chunking: 'cdc' });
    const m = w.commit();
    expect(verifyStore(store, { partDigests: true }).problems).toEqual([]);
    const file = path.join(dir, 'checkpoints', manifestFileName(m.seq));
    const parsed = parseManifest(readFileSync(file, 'utf8')) as ListedManifestFile;
    const { check: _check, ...body } = parsed;
    const other = parsed.parts[1]!.sha256!;
    writeFileSync(
      file,
      serializeManifest({ ...body, parts: parsed.parts.map((p, i) => (i === 0 ? { ...p, sha256: other } : p)) }).text,
    );
    expect(verifyStore(store).problems).toEqual([]); // every chunk is sound
    const problems = verifyStore(store, { partDigests: true }).problems;
    expect(problems).toEqual([expect.objectContaining({ seq: m.seq, part: 'disk', chunk: '(part digest)' })]);
    store.close();
  });
});
