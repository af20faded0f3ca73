// Reading a stored part back as bytes, in ~1 MiB pieces: plain parts are their chunks concatenated; a `qemu-pages`
// part is rebuilt byte for byte by interleaving its meta stream and page chunks as its map says.
import { IntegrityError } from '../../core/errors.js';
import { decodeVarints } from '../../core/bytes.js';
import type { PartEntry } from '../manifest.js';
import { PageKeys } from '../chunking/qemu-pages.js';
import { PAGE_SIZE } from '../chunking/qemu-format.js';
import { MigrationSplitter } from '../chunking/qemu-migration.js';

/** What reading needs from the store: a hash-checked chunk by hash. */
export interface ChunkReader {
  readChunk(hash: string): Buffer;
}

/** The size of the pieces a part is handed out in. */
export const PIECE = 1 << 20;

/**
 * Copies byte ranges into ~1 MiB buffers; each full one is handed out. Fresh buffers by default (a socket may hold
 * one); `reuse` cycles three, oldest first, for a consumer done with a piece before it takes the one after next (a
 * file writer behind checkedStream, which holds one piece back): `push` writes the rest of its bytes into the next
 * buffer before the caller hands the full one out, so the piece before it must still be left alone then.
 */
export class Batcher {
  private readonly spare: Buffer[] = [];
  private buf: Buffer = Buffer.allocUnsafe(PIECE);
  private fill = 0;

  constructor(private readonly reuse = false) {
    if (reuse) this.spare.push(Buffer.allocUnsafe(PIECE), Buffer.allocUnsafe(PIECE));
  }

  *write(data: Uint8Array): Generator<Buffer> {
    let off = 0;
    while (off < data.length) {
      const n = Math.min(PIECE - this.fill, data.length - off);
      this.buf.set(data.subarray(off, off + n), this.fill);
      this.fill += n;
      off += n;
      if (this.fill === PIECE) {
        const full = this.buf;
        this.buf = this.spare.shift() ?? Buffer.allocUnsafe(PIECE);
        if (this.reuse) this.spare.push(full);
        this.fill = 0;
        yield full;
      }
    }
  }

  /**
   * Copy in `data` of at most one piece's size (so it fills at most one piece, and a reused one is not written again
   * before its consumer had it): the piece it fills, if any. No generator per call: the fast read's per-chunk path.
   */
  push(data: Uint8Array): Buffer | undefined {
    let off = 0;
    let done: Buffer | undefined;
    while (off < data.length) {
      const n = Math.min(PIECE - this.fill, data.length - off);
      this.buf.set(n === data.length ? data : data.subarray(off, off + n), this.fill);
      this.fill += n;
      off += n;
      if (this.fill === PIECE) {
        done = this.buf;
        this.buf = this.spare.shift() ?? Buffer.allocUnsafe(PIECE);
        if (this.reuse) this.spare.push(done);
        this.fill = 0;
      }
    }
    return done;
  }

  *flush(): Generator<Buffer> {
    if (this.fill > 0) yield this.buf.subarray(0, this.fill);
    this.fill = 0;
  }
}

/** Reads the meta stream of a page-split part a few bytes at a time, loading its chunks lazily. */
export class ChunkCursor {
  private i = 0;
  private cur: Buffer = Buffer.alloc(0);
  private off = 0;

  constructor(
    private readonly store: ChunkReader,
    private readonly hashes: string[],
  ) {}

  /** The next view of at most `n` (> 0) bytes, reading the next chunk when the current one is used up. */
  private nextView(n: number, what: string): Buffer {
    while (this.off === this.cur.length) {
      const h = this.hashes[this.i++];
      if (h === undefined) throw new IntegrityError(`${what}: the page map asks for more meta bytes than the part has`);
      this.cur = this.store.readChunk(h);
      this.off = 0;
    }
    const k = Math.min(n, this.cur.length - this.off);
    this.off += k;
    return this.cur.subarray(this.off - k, this.off);
  }

  /** Yield the next `n` bytes (as views); throws when the chunks run out first. */
  *take(n: number, what: string): Generator<Buffer> {
    for (let left = n; left > 0;) {
      const v = this.nextView(left, what);
      left -= v.length;
      yield v;
    }
  }

  /** The next `n` bytes handed to `fn` as views (take without a generator per call); throws when the chunks run out first. */
  takeEach(n: number, what: string, fn: (view: Buffer) => void): void {
    for (let left = n; left > 0;) {
      const v = this.nextView(left, what);
      left -= v.length;
      fn(v);
    }
  }

  /** Everything left. */
  *rest(): Generator<Buffer> {
    if (this.off < this.cur.length) yield this.cur.subarray(this.off);
    while (this.i < this.hashes.length) yield this.store.readChunk(this.hashes[this.i++]!);
  }
}

/** The page map of a page-split part: meta bytes before each page. */
export function pageMap(store: ChunkReader, p: PartEntry): number[] {
  const l = p.layout!;
  const mapHashes = p.chunks.slice(l.metaChunks, l.metaChunks + l.mapChunks);
  let map: number[];
  try {
    map = decodeVarints(Buffer.concat(mapHashes.map((h) => store.readChunk(h))));
  } catch (err) {
    if (err instanceof IntegrityError) throw err;
    throw new IntegrityError(`part "${p.name}": its page map is malformed`, { cause: err });
  }
  if (map.length !== l.pages)
    throw new IntegrityError(`part "${p.name}": its page map lists ${map.length} pages, the layout ${l.pages}`);
  return map;
}

/** Where a page-split part's page chunks start in its chunk list. */
export const firstPage = (p: PartEntry): number => p.layout!.metaChunks + p.layout!.mapChunks;

/**
 * The pieces of a page-split stream in stream order: meta bytes as its page map places them, and `page(i)` for the
 * i-th page (its stored chunk to rebuild the stream; anything 4 KiB long to re-parse it without reading pages).
 */
function* streamPieces(store: ChunkReader, p: PartEntry, page: (i: number) => Uint8Array): Generator<Uint8Array> {
  const map = pageMap(store, p);
  const meta = new ChunkCursor(store, p.chunks.slice(0, p.layout!.metaChunks));
  for (let i = 0; i < map.length; i++) {
    yield* meta.take(map[i]!, `part "${p.name}"`);
    yield page(i);
  }
  yield* meta.rest();
}

/** The bytes of one part, in order, in pieces of up to 1 MiB. Every chunk read is hash-checked by the store. */
export function* partBytes(store: ChunkReader, p: PartEntry): Generator<Buffer> {
  const out = new Batcher();
  if (!p.layout) {
    for (const h of p.chunks) yield* out.write(store.readChunk(h));
  } else {
    const first = firstPage(p);
    for (const piece of streamPieces(store, p, (i) => store.readChunk(p.chunks[first + i]!))) yield* out.write(piece);
  }
  yield* out.flush();
}

const ZERO_PAGE = new Uint8Array(PAGE_SIZE);

/**
 * Where each page of a page-split part sits in the guest (MigrationSplitter.pageKey) mapped to its chunk hash: the
 * writer's delta bases after a restart. The meta stream is parsed again with a zero page in place of each payload
 * (the parser never reads payloads), so no page chunk is read. A stream that fell back yields the pages before it.
 */
export function pageKeys(store: ChunkReader, p: PartEntry): PageKeys {
  if (!p.layout) return PageKeys.EMPTY;
  const pages = p.layout.pages;
  const keys: number[] = [];
  const splitter = new MigrationSplitter(
    () => {},
    () => {
      if (keys.length < pages) keys.push(splitter.pageKey);
    },
  );
  for (const piece of streamPieces(store, p, () => ZERO_PAGE)) splitter.push(piece);
  splitter.end();
  const first = firstPage(p);
  return PageKeys.of(keys, p.chunks.slice(first, first + keys.length));
}

/** The error of a rebuilt part whose bytes hash to `got`, not the manifest's `want` (one wording for every reader). */
export function digestMismatch(what: string, got: string, want: string): IntegrityError {
  return new IntegrityError(
    `${what}: the rebuilt bytes hash to ${got.slice(0, 16)}..., the manifest's part digest is ${want.slice(0, 16)}...`,
  );
}
