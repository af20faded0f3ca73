// What a QEMU migration stream split found so far: pages, zero pages, meta and stream bytes, the RAM blocks the
// stream declares, and where (and why) parsing gave up, if it did.
import { PushedFields } from './qemu-fields.js';

/** What a split found; the same fields as the splitter's getters. */
export interface MigrationSplitStats {
  pages: number;
  zeroPages: number;
  metaBytes: number;
  streamBytes: number;
  ramBytes: number | null;
  fallback: { offset: number; reason: string } | null;
}

/** A RAM block of the MEM_SIZE record. */
export interface Block {
  id: string;
  idBytes: Uint8Array;
  bytes: number;
  /** Position in the MEM_SIZE block list. */
  index: number;
}

/** The splitter's counters, kept by the parser and read through getters. */
export abstract class SplitCounters extends PushedFields {
  protected fail: { offset: number; reason: string } | null = null;
  protected nPages = 0;
  protected nZero = 0;
  protected nMeta = 0;
  protected nStream = 0;
  protected memSize: number | null = null;
  protected readonly blockList: Block[] = [];

  /** Where parsing gave up (byte offset in the stream) and why, or null if the RAM part parsed to its end section (final after end()). */
  get fallback(): { offset: number; reason: string } | null {
    return this.fail;
  }
  /** Pages with a payload so far. */
  get pages(): number {
    return this.nPages;
  }
  /** Zero pages (a fill byte, no payload) so far. */
  get zeroPages(): number {
    return this.nZero;
  }
  /** Bytes handed out as meta so far. */
  get metaBytes(): number {
    return this.nMeta;
  }
  /** Bytes pushed so far. */
  get streamBytes(): number {
    return this.nStream;
  }
  /** Bytes of all migrated RAM blocks (guest RAM plus ROMs such as the BIOS), from the MEM_SIZE record; null if not seen. */
  get ramBytes(): number | null {
    return this.memSize;
  }
  /** The RAM block list of the MEM_SIZE record (e.g. "microvm.ram" = guest RAM, "pc.bios"). */
  get blocks(): ReadonlyArray<{ id: string; bytes: number }> {
    return this.blockList.map(({ id, bytes }) => ({ id, bytes }));
  }

  /** A plain snapshot of the counters and the fallback. */
  stats(): MigrationSplitStats {
    const { pages, zeroPages, metaBytes, streamBytes, ramBytes, fallback } = this;
    return { pages, zeroPages, metaBytes, streamBytes, ramBytes, fallback };
  }
}
