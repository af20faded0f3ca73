// The `qemu-pages` chunking: a QEMU migration stream split by MigrationSplitter into page payloads (one chunk each,
// so a page dedups wherever it sits in the stream) and meta bytes (content-defined chunks), plus a map of where each
// page goes. The part's PartEntry gets chunks = meta, map, pages and a layout that says how many of each.
import { CDC_1K } from './cdc.js';
import { GrowBuffer } from '../../core/bytes.js';
import { CdcCutter, type Cutter } from './ingest.js';
import type { PartEntry } from '../manifest.js';
import { MigrationSplitter } from './qemu-migration.js';

/**
 * Adds one chunk to a list of hashes (the writer's hash + dedup + pack step). `base`: a chunk the new one probably
 * resembles (the same guest page one checkpoint earlier), which the writer may store it as a delta against.
 */
export type AddChunk = (chunk: Uint8Array, into: string[], base?: string) => void;

/**
 * Page key (MigrationSplitter.pageKey) -> chunk hash, for one part of one checkpoint: keys ascending, each once.
 * Arrays, not a Map: a precopy stream sends pages in address order, so the next checkpoint finds each page's base by
 * walking forward, with no per-checkpoint Map to build.
 */
export class PageKeys {
  static readonly EMPTY = new PageKeys([], []);

  private constructor(
    readonly keys: readonly number[],
    readonly hashes: readonly string[],
  ) {}

  /** From keys and hashes in stream order; sorted (last occurrence of a key wins) only if the stream was not. */
  static of(keys: number[], hashes: string[]): PageKeys {
    let ascending = true;
    for (let i = 1; i < keys.length && ascending; i++) ascending = keys[i - 1]! < keys[i]!;
    if (ascending) return new PageKeys(keys, hashes);
    const last = new Map<number, string>();
    keys.forEach((k, i) => last.set(k, hashes[i]!));
    const sorted = [...last.keys()].sort((a, b) => a - b);
    return new PageKeys(
      sorted,
      sorted.map((k) => last.get(k)!),
    );
  }

  /** A lookup for keys asked mostly in ascending order (amortised O(1)); any order is answered correctly. */
  lookup(): (key: number) => string | undefined {
    const { keys, hashes } = this;
    let i = 0;
    return (key) => {
      if (i > 0 && keys[i - 1]! >= key) {
        // Asked out of order: binary search for the first key >= key.
        let lo = 0;
        let hi = keys.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (keys[mid]! < key) lo = mid + 1;
          else hi = mid;
        }
        i = lo;
      }
      while (i < keys.length && keys[i]! < key) i++;
      return i < keys.length && keys[i] === key ? hashes[i++] : undefined;
    };
  }
}

export class PagesCutter implements Cutter {
  private readonly meta: string[] = [];
  private readonly pages: string[] = [];
  private readonly map = new GrowBuffer(16 * 1024);
  private readonly metaCutter: CdcCutter;
  private readonly splitter: MigrationSplitter;
  private metaSincePage = 0;
  private metaBytes = 0;

  /** Where each page of this stream sits (MigrationSplitter.pageKey), in stream order, for `pageKeys`. */
  private readonly keyList: number[] = [];
  /** After end(): this stream's page keys, the next checkpoint's delta bases. */
  pageKeys: PageKeys = PageKeys.EMPTY;

  /** `previous`: the same part's page keys one checkpoint earlier (delta bases); empty: store every new page whole. */
  constructor(
    private readonly entry: PartEntry,
    private readonly add: AddChunk,
    previous: PageKeys = PageKeys.EMPTY,
  ) {
    const baseOf = previous.lookup();
    this.metaCutter = new CdcCutter((c) => add(c, this.meta), CDC_1K);
    this.splitter = new MigrationSplitter(
      (b) => {
        this.metaCutter.push(b);
        this.metaSincePage += b.length;
        this.metaBytes += b.length;
      },
      (page) => {
        this.map.appendVarint(this.metaSincePage);
        this.metaSincePage = 0;
        const key = this.splitter.pageKey;
        this.keyList.push(key);
        add(page, this.pages, baseOf(key));
      },
    );
  }

  push(data: Uint8Array): void {
    this.splitter.push(data);
  }

  end(): void {
    this.splitter.end();
    this.metaCutter.end();
    const mapChunks: string[] = [];
    // Content-defined: a varint that changes length shifts every later byte of the map.
    const mapCutter = new CdcCutter((c) => this.add(c, mapChunks), CDC_1K);
    mapCutter.push(this.map.view());
    mapCutter.end();
    const s = this.splitter;
    // A loop, not push(...list): a big guest has more pages than a call may take arguments (300k overflow the stack).
    for (const list of [this.meta, mapChunks, this.pages]) for (const h of list) this.entry.chunks.push(h);
    this.pageKeys = PageKeys.of(this.keyList, this.pages);
    this.entry.layout = {
      kind: 'qemu-pages',
      metaChunks: this.meta.length,
      metaBytes: this.metaBytes,
      mapChunks: mapChunks.length,
      pages: this.pages.length,
      zeroPages: s.zeroPages,
      ramBytes: s.ramBytes,
      fallback: s.fallback,
    };
  }
}
