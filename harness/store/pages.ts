// The `qemu-pages` chunking: a QEMU migration stream split by MigrationSplitter into page payloads (one chunk each,
// so a page dedups wherever it sits in the stream) and meta bytes (content-defined chunks), plus a map of where each
// page goes. The part's PartEntry gets chunks = meta, map, pages and a layout that says how many of each.
import { CDC_1K } from './cdc.js';
import { CdcCutter, GrowBuffer, type Cutter } from './ingest.js';
import type { PartEntry } from './manifest.js';
import { MigrationSplitter } from './qemu-migration.js';

/**
 * Adds one chunk to a list of hashes (the writer's hash + dedup + pack step). `base`: a chunk the new one probably
 * resembles (the same guest page one checkpoint earlier), which the writer may store it as a delta against.
 */
export type AddChunk = (chunk: Uint8Array, into: string[], base?: string) => void;

/** Page key (MigrationSplitter.pageKey) -> chunk hash, for one part of one checkpoint. */
export type PageKeys = ReadonlyMap<number, string>;

export class PagesCutter implements Cutter {
  private readonly meta: string[] = [];
  private readonly pages: string[] = [];
  private readonly map = new GrowBuffer(16 * 1024);
  private readonly metaCutter: CdcCutter;
  private readonly splitter: MigrationSplitter;
  private metaSincePage = 0;
  private metaBytes = 0;

  /** Where each page of this stream sits -> its hash: the next checkpoint's delta bases. */
  readonly keys = new Map<number, string>();

  /** `previous`: the same part's page keys one checkpoint earlier (delta bases); empty: store every new page whole. */
  constructor(
    private readonly entry: PartEntry,
    private readonly add: AddChunk,
    previous: PageKeys = new Map(),
  ) {
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
        add(page, this.pages, previous.get(key));
        this.keys.set(key, this.pages[this.pages.length - 1]!);
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
