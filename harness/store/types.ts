// Interfaces between targets and the content-addressed store: what a checkpoint writes and what a restore reads.

/** Bytes to store: a buffer, or a stream of chunks (read incrementally, never buffered whole). */
export type PartData = Uint8Array | AsyncIterable<Uint8Array>;

/**
 * How a part is cut into chunks:
 * - `fixed`: 4 KiB (page-aligned data: disk images, RAM images);
 * - `cdc`: content-defined, ~4 KiB average (streams whose records are not page-aligned);
 * - `qemu-pages`: a QEMU migration stream, parsed: each RAM page's 4 KiB is one chunk, everything else (headers,
 *   zero-page markers, device state) a small content-defined "meta" stream; a stream it cannot parse falls back to
 *   meta from that point. Restores byte-identical.
 */
export type Chunking = 'fixed' | 'cdc' | 'qemu-pages';

export interface PutOptions {
  chunking?: Chunking;
}

/** Write side of one checkpoint. Nothing is visible to readers until the host commits the checkpoint. */
export interface CheckpointSink {
  /** The seq the checkpoint is committed as, when the sink is a store writer (the hot copy is named by it). */
  readonly seq?: number;
  /** Store one named part (e.g. "workspace/log.txt", "memory", "tool", "ram", "disk"). Names are unique per checkpoint. */
  put(name: string, data: PartData, opts?: PutOptions): Promise<void>;
  /** Store one named file from disk, streamed. */
  putFile(name: string, path: string, opts?: PutOptions): Promise<void>;
}

/** How a part is streamed. */
export interface StreamOptions {
  /**
   * Pieces may be reused buffers: the consumer is done with a piece (written out, copied, or its write's callback
   * called) before it asks for the piece after the next one. Saves faulting in a fresh page per 4 KiB read (costly
   * on a nested-virtualisation host, bench/README.md). A source may ignore it and hand out fresh buffers.
   */
  reuse?: boolean;
}

/** Read side of one committed checkpoint. */
export interface CheckpointSource {
  readonly seq: number;
  readonly step: number;
  /** Part names in the order they were put. */
  parts(): string[];
  get(name: string): Promise<Buffer>;
  /** The part's bytes in pieces, read lazily (`opts.reuse`: see StreamOptions). */
  stream(name: string, opts?: StreamOptions): AsyncIterable<Buffer>;
  /** Materialise a part into a scratch file (created or truncated), streamed; not fsynced (the store keeps the durable copy). */
  writeFile(name: string, path: string): Promise<void>;
  /**
   * Optional: write the part into open file `fd` from offset 0 (every byte checked before it is written; into a file
   * that holds no data, all-zero pages may be left as holes). Returns the bytes it covers.
   */
  writeInto?(name: string, fd: number): Promise<number>;
  /** Optional: the part's SHA-256 (hex) as the store recorded it; undefined when the manifest has none. */
  digest?(name: string): string | undefined;
  /** Optional: the part's logical size in bytes. */
  size?(name: string): number;
}
