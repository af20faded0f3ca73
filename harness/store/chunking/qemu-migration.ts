// Page-aware splitter of a QEMU migration stream: 4 KiB RAM page payloads apart, every other byte as "meta".
//
// Grammar (QEMU 7.2, migration/savevm.c + migration/ram.c), precopy with default capabilities:
//   "QEVM" be32(3) | head: configuration section, other START sections (meta, searched, not parsed)
//   | ram START: 0x01 be32(id) u8(3) "ram" be32(instance) be32(4) records, then optional footer 0x7e be32(id)
//   | ram PART / END: 0x02|0x03 be32(id) records [footer] ... | tail: device state, EOF, vmdesc JSON (meta)
//   records: be64(addr | flags), flags in the low 12 bits, until EOS:
//     MEM_SIZE 0x04: addr = total; blocks {u8 len, idstr, be64 used_length} until their lengths sum to the total
//     PAGE 0x08 / ZERO 0x02 (+ CONTINUE 0x20 = same block as before, else u8 len + idstr): 4096 bytes / 1 fill byte
//     EOS 0x10; MULTIFD_FLUSH 0x200 (QEMU 8.x with multifd, no payload). Anything else (XBZRLE, COMPRESS_PAGE, HOOK) falls back.
// Records are parsed only where the grammar says one starts, so page payload bytes are never read as structure.
import { createReadStream } from 'node:fs';

export const PAGE_SIZE = 4096;

/** Receives one piece; the buffer may be a view into the pushed data or an internal buffer, valid during the call only. */
export type PieceFn = (bytes: Uint8Array) => void;

/** What a split found; the same fields as the splitter's getters. */
export interface MigrationSplitStats {
  pages: number;
  zeroPages: number;
  metaBytes: number;
  streamBytes: number;
  ramBytes: number | null;
  fallback: { offset: number; reason: string } | null;
}

const MAGIC = 0x5145564d; // "QEVM"
const VERSION = 3;
const RAM_VERSION = 4;
const SECTION_START = 0x01;
const SECTION_PART = 0x02;
const SECTION_END = 0x03;
const FOOTER = 0x7e;
const ZERO = 0x02;
const MEM_SIZE = 0x04;
const PAGE = 0x08;
const EOS = 0x10;
const CONTINUE = 0x20;
const MULTIFD_FLUSH = 0x200;
const FLAG_NAMES: Array<[number, string]> = [
  [0x01, 'FULL'],
  [ZERO, 'ZERO'],
  [MEM_SIZE, 'MEM_SIZE'],
  [PAGE, 'PAGE'],
  [EOS, 'EOS'],
  [CONTINUE, 'CONTINUE'],
  [0x40, 'XBZRLE'],
  [0x80, 'HOOK'],
  [0x100, 'COMPRESS_PAGE'],
  [MULTIFD_FLUSH, 'MULTIFD_FLUSH'],
];
/** The ram START section header is searched for (not parsed) within this many bytes after the magic. */
const HEAD_LIMIT = 4 * 2 ** 20;
/** 0x01 be32(id) 0x03 "ram" be32(instance) be32(version): 17 bytes; the tag sits at +5. */
const START_LEN = 17;
const RAM_TAG = Buffer.from('\x03ram', 'latin1');
const MAX_BLOCKS = 4096;

// Parser states: which field is expected next.
const S_MAGIC = 0,
  S_HEAD = 1,
  S_RECORD = 2,
  S_BLOCK_LEN = 3,
  S_BLOCK_ID = 4,
  S_BLOCK_SIZE = 5,
  S_PAGE_LEN = 6;
const S_PAGE_ID = 7,
  S_FILL = 8,
  S_PAGE = 9,
  S_AFTER_EOS = 10,
  S_FOOTER = 11,
  S_SECTION = 12,
  S_TAIL = 13;

const be32 = (b: Uint8Array, o: number): number =>
  ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;

function flagNames(flags: number): string {
  const names = FLAG_NAMES.filter(([bit]) => flags & bit).map(([, name]) => name);
  const unknown = FLAG_NAMES.reduce((rest, [bit]) => rest & ~bit, flags);
  if (unknown !== 0) names.push(`0x${unknown.toString(16)}`);
  return names.join('|');
}

interface Block {
  id: string;
  idBytes: Uint8Array;
  bytes: number;
  /** Position in the MEM_SIZE block list. */
  index: number;
}

/** Push-based splitter of a QEMU migration stream into meta bytes and 4 KiB page payloads, in stream order. */
export class MigrationSplitter {
  private state = S_MAGIC;
  private ended = false;
  private fail: { offset: number; reason: string } | null = null;
  private nPages = 0;
  private nZero = 0;
  private nMeta = 0;
  private nStream = 0;
  private memSize: number | null = null;
  private readonly blockList: Block[] = [];
  /** Stream offset of the pushed buffer's first byte, and the read position in it. */
  private base = 0;
  private pos = 0;
  /** A field straddling pushes is assembled in `scratch`; `need` points (fb, fo) at a complete field. */
  private readonly scratch = new Uint8Array(256);
  private held = 0;
  private fb: Uint8Array = this.scratch;
  private fo = 0;
  private fieldAt = 0;
  /** A page straddling pushes is assembled here. */
  private readonly pageBuf = new Uint8Array(PAGE_SIZE);
  private pageHeld = 0;
  // Head search (bytes after the magic, copied until the ram START header is found).
  private head = Buffer.allocUnsafe(4096);
  private headLen = 0;
  private scanFrom = 0;
  // RAM parse context.
  private ramId = 0;
  private inEnd = false;
  private recAt = 0;
  private addr = 0;
  private kind = 0;
  private remaining = 0;
  private idLen = 0;
  private pendingId = '';
  private block: Block | null = null;

  constructor(
    private readonly onMeta: PieceFn,
    private readonly onPage: PieceFn,
  ) {}

  /** Where parsing gave up (byte offset in the stream) and why, or null if the RAM part parsed to its end section (final after end()). */
  get fallback(): { offset: number; reason: string } | null {
    return this.fail;
  }
  get pages(): number {
    return this.nPages;
  }
  get zeroPages(): number {
    return this.nZero;
  }
  get metaBytes(): number {
    return this.nMeta;
  }
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

  /**
   * Where the page being handed to onPage sits in the guest: its RAM block's position in the block list times 2^44,
   * plus its address in the block. Valid during the onPage call; the same page of the same machine has the same key
   * in every stream.
   */
  get pageKey(): number {
    return (this.block?.index ?? 0) * 2 ** 44 + this.addr;
  }

  /** A plain snapshot of the counters and the fallback. */
  stats(): MigrationSplitStats {
    const { pages, zeroPages, metaBytes, streamBytes, ramBytes, fallback } = this;
    return { pages, zeroPages, metaBytes, streamBytes, ramBytes, fallback };
  }

  /** Feed the next bytes; calls onMeta / onPage for each piece, in order. */
  push(d: Uint8Array): void {
    if (this.ended) throw new Error('MigrationSplitter.push() after end()');
    this.base = this.nStream;
    this.nStream += d.length;
    this.pos = 0;
    let metaFrom = 0;
    while (this.pos < d.length) {
      if (this.state === S_PAGE) {
        if (this.pos > metaFrom) this.meta(d.subarray(metaFrom, this.pos));
        const p = this.pos;
        const n = Math.min(PAGE_SIZE - this.pageHeld, d.length - p);
        if (n === PAGE_SIZE) this.onPage(d.subarray(p, p + PAGE_SIZE));
        else {
          this.pageBuf.set(d.subarray(p, p + n), this.pageHeld);
          this.pageHeld += n;
          if (this.pageHeld === PAGE_SIZE) this.onPage(this.pageBuf);
        }
        this.pos = metaFrom = p + n;
        if (n === PAGE_SIZE || this.pageHeld === PAGE_SIZE) {
          this.pageHeld = 0;
          this.nPages++;
          this.state = S_RECORD;
        }
      } else if (this.state === S_TAIL) this.pos = d.length;
      else this.step(d);
    }
    if (d.length > metaFrom) this.meta(d.subarray(metaFrom));
  }

  /** End of stream: flushes whatever is held back as meta, and records why if the RAM part did not reach its end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.pageHeld > 0) {
      this.meta(this.pageBuf.subarray(0, this.pageHeld));
      this.giveUp(this.recAt, `stream ends inside a page (${this.pageHeld} of ${PAGE_SIZE} bytes)`);
    } else if (this.state === S_MAGIC || this.state === S_HEAD)
      this.giveUp(this.state === S_MAGIC ? 0 : 8, 'stream ends before the ram START section');
    else if (this.state !== S_TAIL) {
      // Offset of the incomplete record (or section header / footer), or the end if it stopped between two.
      const between = this.state === S_RECORD || this.state === S_SECTION || this.state === S_AFTER_EOS;
      const at =
        this.state === S_FOOTER
          ? (this.held > 0 ? this.fieldAt : this.nStream) - 1
          : !between
            ? this.recAt
            : this.held > 0
              ? this.fieldAt
              : this.nStream;
      this.giveUp(at, 'stream ends before the ram END section');
    }
  }

  private meta(b: Uint8Array): void {
    this.nMeta += b.length;
    this.onMeta(b);
  }

  private giveUp(offset: number, reason: string): void {
    this.fail ??= { offset, reason };
    this.state = S_TAIL;
  }

  /** Make `n` bytes available at (fb, fo): a view into `d`, or assembled in scratch across pushes (false: need more). */
  private need(d: Uint8Array, n: number): boolean {
    if (this.held === 0) {
      this.fieldAt = this.base + this.pos;
      if (this.pos + n <= d.length) {
        this.fb = d;
        this.fo = this.pos;
        this.pos += n;
        return true;
      }
    }
    const k = Math.min(n - this.held, d.length - this.pos);
    this.scratch.set(d.subarray(this.pos, this.pos + k), this.held);
    this.held += k;
    this.pos += k;
    if (this.held < n) return false;
    this.held = 0;
    this.fb = this.scratch;
    this.fo = 0;
    return true;
  }

  /** Parse one field of the current state (or return having consumed the rest of `d`). */
  private step(d: Uint8Array): void {
    switch (this.state) {
      case S_MAGIC: {
        if (!this.need(d, 8)) return;
        if (be32(this.fb, this.fo) !== MAGIC) return this.giveUp(0, 'bad magic (not a QEMU migration stream)');
        const v = be32(this.fb, this.fo + 4);
        if (v !== VERSION) return this.giveUp(4, `unsupported stream version ${v} (expected ${VERSION})`);
        this.state = S_HEAD;
        return;
      }
      case S_HEAD:
        return this.searchHead(d);
      case S_RECORD: {
        if (this.held === 0) this.recAt = this.base + this.pos;
        if (!this.need(d, 8)) return;
        return this.record(be32(this.fb, this.fo), be32(this.fb, this.fo + 4));
      }
      case S_BLOCK_LEN:
      case S_PAGE_LEN: {
        const len = d[this.pos++]!;
        if (len === 0) return this.giveUp(this.base + this.pos - 1, 'empty RAM block name');
        this.idLen = len;
        this.state = this.state === S_BLOCK_LEN ? S_BLOCK_ID : S_PAGE_ID;
        return;
      }
      case S_BLOCK_ID: {
        if (!this.need(d, this.idLen)) return;
        this.pendingId = Buffer.from(this.fb.subarray(this.fo, this.fo + this.idLen)).toString('latin1');
        this.state = S_BLOCK_SIZE;
        return;
      }
      case S_BLOCK_SIZE: {
        if (!this.need(d, 8)) return;
        const hi = be32(this.fb, this.fo);
        const bytes = hi * 2 ** 32 + be32(this.fb, this.fo + 4);
        if (bytes === 0 || bytes > this.remaining || this.blockList.length >= MAX_BLOCKS) {
          return this.giveUp(
            this.fieldAt,
            `RAM block "${this.pendingId}" size ${bytes} does not fit the ${this.remaining} bytes left of MEM_SIZE`,
          );
        }
        this.blockList.push({
          id: this.pendingId,
          idBytes: Buffer.from(this.pendingId, 'latin1'),
          bytes,
          index: this.blockList.length,
        });
        this.remaining -= bytes;
        this.state = this.remaining > 0 ? S_BLOCK_LEN : S_RECORD;
        return;
      }
      case S_PAGE_ID: {
        if (!this.need(d, this.idLen)) return;
        const { fb, fo, idLen } = this;
        const block = this.blockList.find(
          (b) => b.idBytes.length === idLen && b.idBytes.every((c, i) => c === fb[fo + i]),
        );
        if (block === undefined) {
          const id = Buffer.from(fb.subarray(fo, fo + idLen)).toString('latin1');
          return this.giveUp(this.recAt, `page of unknown RAM block "${id}"`);
        }
        this.block = block;
        return this.pageFor();
      }
      case S_FILL:
        this.pos++;
        this.nZero++;
        this.state = S_RECORD;
        return;
      case S_AFTER_EOS:
        if (d[this.pos] === FOOTER) {
          this.pos++;
          this.state = S_FOOTER;
        } else this.state = this.inEnd ? S_TAIL : S_SECTION; // footers off (old machine types)
        return;
      case S_FOOTER: {
        if (!this.need(d, 4)) return;
        const id = be32(this.fb, this.fo);
        if (id !== this.ramId)
          return this.giveUp(this.fieldAt - 1, `section footer names section ${id}, expected ram (${this.ramId})`);
        this.state = this.inEnd ? S_TAIL : S_SECTION;
        return;
      }
      case S_SECTION: {
        if (!this.need(d, 5)) return;
        const type = this.fb[this.fo]!;
        const id = be32(this.fb, this.fo + 1);
        if ((type !== SECTION_PART && type !== SECTION_END) || id !== this.ramId) {
          return this.giveUp(
            this.fieldAt,
            `section type 0x${type.toString(16)} id ${id} before the ram END section (ram is ${this.ramId})`,
          );
        }
        this.inEnd = type === SECTION_END;
        this.state = S_RECORD;
        return;
      }
    }
  }

  /** One RAM record header (be64 as two be32 words). */
  private record(hi: number, lo: number): void {
    const flags = lo & 0xfff;
    if (hi >= 2 ** 21) return this.giveUp(this.recAt, `RAM record address beyond 2^53 (flags ${flagNames(flags)})`);
    const addr = hi * 2 ** 32 + (lo - flags);
    switch (flags) {
      case PAGE:
      case ZERO:
        this.addr = addr;
        this.kind = flags;
        this.state = S_PAGE_LEN;
        return;
      case PAGE | CONTINUE:
      case ZERO | CONTINUE:
        if (this.block === null)
          return this.giveUp(this.recAt, 'CONTINUE page record with no RAM block named before it');
        this.addr = addr;
        this.kind = flags & ~CONTINUE;
        return this.pageFor();
      case MEM_SIZE:
        if (this.memSize !== null) return this.giveUp(this.recAt, 'second MEM_SIZE record');
        this.memSize = this.remaining = addr;
        this.state = addr > 0 ? S_BLOCK_LEN : S_RECORD;
        return;
      case EOS:
        this.state = S_AFTER_EOS;
        return;
      case MULTIFD_FLUSH:
        return; // no payload
      default:
        return this.giveUp(this.recAt, `unsupported RAM record flags 0x${flags.toString(16)} (${flagNames(flags)})`);
    }
  }

  /** The header named its block: check the page lies inside it, then expect the payload or the fill byte. */
  private pageFor(): void {
    const block = this.block!;
    if (this.addr + PAGE_SIZE > block.bytes) {
      return this.giveUp(
        this.recAt,
        `page at 0x${this.addr.toString(16)} beyond RAM block "${block.id}" (${block.bytes} bytes)`,
      );
    }
    this.state = this.kind === PAGE ? S_PAGE : S_FILL;
  }

  /** Copy head bytes (after the magic) and look for the ram START section header in them. */
  private searchHead(d: Uint8Array): void {
    const take = Math.min(d.length - this.pos, HEAD_LIMIT - this.headLen, 4096); // the push loop calls again for more
    if (this.headLen + take > this.head.length) {
      const next = Buffer.allocUnsafe(Math.min(HEAD_LIMIT, Math.max(2 * this.head.length, this.headLen + take)));
      this.head.copy(next, 0, 0, this.headLen);
      this.head = next;
    }
    this.head.set(d.subarray(this.pos, this.pos + take), this.headLen);
    const before = this.headLen;
    this.headLen += take;
    const h = this.findStart();
    if (h >= 0) {
      // The header ends inside this push (it was incomplete before it): parsing resumes right after it.
      const version = be32(this.head, h + 13);
      this.pos += h + START_LEN - before;
      this.ramId = be32(this.head, h + 1);
      this.head = Buffer.alloc(0);
      if (version !== RAM_VERSION)
        return this.giveUp(8 + h, `ram section version ${version} unsupported (expected ${RAM_VERSION})`);
      this.state = S_RECORD;
      return;
    }
    this.pos += take;
    if (this.headLen === HEAD_LIMIT) this.giveUp(8, `no ram START section in the first ${HEAD_LIMIT} bytes`);
  }

  /** Index in `head` of a complete "0x01 id 0x03 ram instance version" header, or -1 (scanFrom remembers progress). */
  private findStart(): number {
    const view = this.head.subarray(0, this.headLen);
    for (;;) {
      const q = view.indexOf(RAM_TAG, this.scanFrom + 5);
      if (q < 0) {
        this.scanFrom = Math.max(this.scanFrom, this.headLen - 8);
        return -1;
      }
      const h = q - 5;
      if (h + START_LEN > this.headLen) {
        this.scanFrom = h;
        return -1;
      }
      this.scanFrom = h + 1;
      if (view[h] === SECTION_START) return h;
    }
  }
}

/** Split a whole stream (e.g. a part being stored) with a MigrationSplitter; resolves to its statistics. */
export async function splitMigrationStream(
  source: AsyncIterable<Uint8Array>,
  onMeta: PieceFn,
  onPage: PieceFn,
): Promise<MigrationSplitStats> {
  const splitter = new MigrationSplitter(onMeta, onPage);
  for await (const chunk of source) splitter.push(chunk);
  splitter.end();
  return splitter.stats();
}

/** Split a migration stream file (1 MiB reads); without callbacks it only measures (pages, zero pages, meta bytes). */
export function splitMigrationFile(
  path: string,
  onMeta: PieceFn = () => {},
  onPage: PieceFn = () => {},
): Promise<MigrationSplitStats> {
  return splitMigrationStream(createReadStream(path, { highWaterMark: 2 ** 20 }), onMeta, onPage);
}
