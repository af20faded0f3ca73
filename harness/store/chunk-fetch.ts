// Fetching a batch of chunks for one read: their stored blocks read in a few large reads, decompressed and hash-checked,
// all on the read pool's threads, deltas rebuilt from bases fetched in the same batch. Anything that does not check out is
// read again through PackReader.readChunk, which throws the IntegrityError naming the pack and chunk.
import type { BlockJob, JobBlock } from './block-job.js';
import { applyDelta } from './chunking/delta.js';
import type { ChunkLocation } from './pack-index.js';
import type { PackReader } from './pack-reader.js';
import type { ReadPool } from './read-pool.js';
import { sha256 } from './sha256.js';

/** Reads of one pack merge across gaps of at most this many bytes, up to MAX_RANGE bytes a read. */
const MAX_GAP = 64 * 1024;
const MAX_RANGE = 8 << 20;

type Located = [hash: string, loc: ChunkLocation];

/** A reusable buffer a batch's plain bytes land in (shared with the workers, so nothing is copied back). */
export interface Slot {
  buf: SharedArrayBuffer;
}

/** One stored block (or raw chunk) and what the batch wants from it: chunks to check, delta forms to apply. */
interface Group {
  loc: ChunkLocation;
  checked: Located[];
  deltas: Located[];
}

const byPlace = (a: Group, b: Group): number =>
  a.loc.pack < b.loc.pack ? -1 : a.loc.pack > b.loc.pack ? 1 : a.loc.offset - b.loc.offset;

/** A slice of a block a worker handed back, as a Buffer; null when the block is too short for it. */
function slice(plain: Uint8Array, loc: ChunkLocation): Buffer | null {
  if (loc.inner + loc.rawLength > plain.length) return null;
  return Buffer.from(plain.buffer, plain.byteOffset + loc.inner, loc.rawLength);
}

/** Fetches hash-checked chunks in batches for one read; counts the hashes it computes. */
export class ChunkFetcher {
  /** SHA-256 computations so far: one per distinct chunk fetched (a chunk `known` to the caller is not fetched). */
  hashed = 0;

  constructor(
    private readonly packs: PackReader,
    private readonly pool: ReadPool,
  ) {}

  /**
   * The checked bytes of each of `hashes`; `known` returns chunks this read has already checked (not fetched again).
   * With a `slot`, the bytes land in its buffer (grown as needed), valid until the caller hands the slot out again.
   */
  async fetch(
    hashes: Iterable<string>,
    known: (h: string) => Buffer | undefined,
    slot?: Slot,
  ): Promise<Map<string, Buffer>> {
    // blocks by pack, then offset (no key string built per chunk)
    const groups = new Map<string, Map<number, Group>>();
    const all: Group[] = [];
    const deltas: Located[] = [];
    const slow: string[] = [];
    const seen = new Set<string>();
    const want = (h: string, loc: ChunkLocation, delta: boolean): void => {
      let inPack = groups.get(loc.pack);
      if (inPack === undefined) groups.set(loc.pack, (inPack = new Map<number, Group>()));
      let g = inPack.get(loc.offset);
      if (g === undefined) {
        inPack.set(loc.offset, (g = { loc, checked: [], deltas: [] }));
        all.push(g);
      }
      (delta ? g.deltas : g.checked).push([h, loc]);
    };
    const add = (h: string): void => {
      if (seen.has(h) || known(h) !== undefined) return;
      seen.add(h);
      const loc = this.packs.locate(h);
      if (loc === undefined) slow.push(h);
      else if (loc.base === undefined) want(h, loc, false);
      else if (this.packs.locate(loc.base)?.base !== undefined)
        slow.push(h); // missing base or a chain: readChunk says which
      else {
        deltas.push([h, loc]);
        want(h, loc, true);
        add(loc.base);
      }
    };
    for (const h of hashes) add(h);

    const { reads, blocks, owners } = this.planReads(all.sort(byPlace));
    if (slot !== undefined) {
      const need = blocks.reduce((sum, b) => sum + b.plain, 0);
      if (slot.buf.byteLength < need) slot.buf = new SharedArrayBuffer(need + (1 << 20));
    }
    const result =
      blocks.length > 0 ? await this.pool.run(reads, blocks, slot?.buf) : { blocks: [], bad: [], hashed: 0 };
    this.hashed += result.hashed;
    const bad = new Set<string>();
    for (let k = 0; k < result.bad.length; k += 2) {
      const g = owners[result.bad[k]!]!;
      const s = result.bad[k + 1]!;
      for (const [h] of s < 0 ? [...g.checked, ...g.deltas] : [g.checked[s]!]) bad.add(h);
    }
    const out = new Map<string, Buffer>();
    const forms = new Map<string, Buffer>();
    result.blocks.forEach((plain, b) => {
      const g = owners[b]!;
      for (const [into, list] of [
        [out, g.checked],
        [forms, g.deltas],
      ] as const) {
        for (const [h, loc] of list) {
          const bytes = plain === null || bad.has(h) ? null : slice(plain, loc);
          if (bytes === null) slow.push(h);
          else into.set(h, bytes);
        }
      }
    });
    for (const h of slow) if (!out.has(h)) out.set(h, this.packs.readChunk(h));
    for (const [h, loc] of deltas) {
      const form = forms.get(h);
      if (out.has(h) || form === undefined) continue;
      const base = out.get(loc.base!) ?? known(loc.base!) ?? this.packs.readChunk(loc.base!);
      const data = applyDelta(base, form);
      this.hashed++;
      out.set(h, data !== null && sha256(data) === h ? data : this.packs.readChunk(h));
    }
    return out;
  }

  /** The reads that fetch the groups' stored bytes, neighbours in one pack merged into one read, and the blocks in them. */
  private planReads(list: Group[]): { reads: BlockJob['reads']; blocks: JobBlock[]; owners: Group[] } {
    const reads: BlockJob['reads'] = [];
    const blocks: JobBlock[] = [];
    for (let i = 0; i < list.length;) {
      const first = list[i]!.loc;
      let end = first.offset + first.length;
      let j = i + 1;
      for (; j < list.length; j++) {
        const l = list[j]!.loc;
        if (l.pack !== first.pack || l.offset > end + MAX_GAP || l.offset + l.length - first.offset > MAX_RANGE) break;
        end = Math.max(end, l.offset + l.length);
      }
      for (const g of list.slice(i, j)) {
        const slices: number[] = [];
        for (const [, loc] of g.checked) slices.push(loc.inner, loc.rawLength);
        let plain = 0;
        for (const [, loc] of [...g.checked, ...g.deltas]) plain = Math.max(plain, loc.inner + loc.rawLength);
        blocks.push({
          read: reads.length,
          at: g.loc.offset - first.offset,
          length: g.loc.length,
          codec: g.loc.codec,
          plain,
          slices,
          hashes: g.checked.map(([h]) => h),
        });
      }
      reads.push([this.packs.packFile(first.pack), first.offset, end - first.offset]);
      i = j;
    }
    return { reads, blocks, owners: list };
  }
}
