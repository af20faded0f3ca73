// Page-aware splitter of a QEMU migration stream (format: qemu-format.ts): 4 KiB RAM page payloads apart, every other
// byte as "meta". Records are parsed only where the grammar says one starts: payload bytes are never read as structure.

import {
  be32,
  CONTINUE,
  EOS,
  FOOTER,
  flagNames,
  HEAD_LIMIT,
  MAGIC,
  MAX_BLOCKS,
  MEM_SIZE,
  MULTIFD_FLUSH,
  PAGE,
  PAGE_SIZE,
  type PieceFn,
  RAM_VERSION,
  SECTION_END,
  SECTION_PART,
  VERSION,
  ZERO,
} from './qemu-format.js';
import { type Block, SplitCounters } from './qemu-split-counters.js';
import { RamStartFinder } from './qemu-ram-start.js';

// Parser states: which field is expected next.
const S_MAGIC = 0,
  S_HEAD = 1,
  S_RECORD = 2,
  S_BLOCK_LEN = 3,
  S_BLOCK_ID = 4,
  S_BLOCK_SIZE = 5,
  S_PAGE_LEN = 6,
  S_PAGE_ID = 7,
  S_FILL = 8,
  S_PAGE = 9,
  S_AFTER_EOS = 10,
  S_FOOTER = 11,
  S_SECTION = 12,
  S_TAIL = 13;

/** Push-based splitter of a QEMU migration stream into meta bytes and 4 KiB page payloads, in stream order. */
export class MigrationSplitter extends SplitCounters {
  private state = S_MAGIC;
  private ended = false;
  /** A page straddling pushes is assembled here. */
  private readonly pageBuf = new Uint8Array(PAGE_SIZE);
  private pageHeld = 0;
  /** Head search (bytes after the magic, copied until the ram START header is found). */
  private readonly ramStart = new RamStartFinder();
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
  ) {
    super();
  }

  /** The page onPage has now, as its RAM block's index x 2^44 + its address: the same in every stream of a machine. */
  get pageKey(): number {
    return (this.block?.index ?? 0) * 2 ** 44 + this.addr;
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

  /** Parse one field of the current state (or return having consumed the rest of `d`). */
  private step(d: Uint8Array): void {
    switch (this.state) {
      case S_MAGIC: {
        if (!this.need(d, 8)) return;
        const v = be32(this.fb, this.fo + 4);
        if (be32(this.fb, this.fo) !== MAGIC) this.giveUp(0, 'bad magic (not a QEMU migration stream)');
        else if (v !== VERSION) this.giveUp(4, `unsupported stream version ${v} (expected ${VERSION})`);
        else this.state = S_HEAD;
        return;
      }
      case S_HEAD:
        this.searchHead(d);
        return;
      case S_RECORD: {
        if (this.held === 0) this.recAt = this.base + this.pos;
        if (!this.need(d, 8)) return;
        this.record(be32(this.fb, this.fo), be32(this.fb, this.fo + 4));
        return;
      }
      case S_BLOCK_LEN:
      case S_PAGE_LEN: {
        this.idLen = d[this.pos++]!;
        if (this.idLen === 0) this.giveUp(this.base + this.pos - 1, 'empty RAM block name');
        else this.state = this.state === S_BLOCK_LEN ? S_BLOCK_ID : S_PAGE_ID;
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
          const left = `the ${this.remaining} bytes left of MEM_SIZE`;
          this.giveUp(this.fieldAt, `RAM block "${this.pendingId}" size ${bytes} does not fit ${left}`);
          return;
        }
        const { pendingId: id, blockList } = this;
        blockList.push({ id, idBytes: Buffer.from(id, 'latin1'), bytes, index: blockList.length });
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
          this.giveUp(this.recAt, `page of unknown RAM block "${id}"`);
        } else {
          this.block = block;
          this.pageFor();
        }
        return;
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
          this.giveUp(this.fieldAt - 1, `section footer names section ${id}, expected ram (${this.ramId})`);
        else this.state = this.inEnd ? S_TAIL : S_SECTION;
        return;
      }
      case S_SECTION: {
        if (!this.need(d, 5)) return;
        const type = this.fb[this.fo]!;
        const id = be32(this.fb, this.fo + 1);
        if ((type !== SECTION_PART && type !== SECTION_END) || id !== this.ramId) {
          const what = `section type 0x${type.toString(16)} id ${id}`;
          this.giveUp(this.fieldAt, `${what} before the ram END section (ram is ${this.ramId})`);
          return;
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
    if (hi >= 2 ** 21) {
      this.giveUp(this.recAt, `RAM record address beyond 2^53 (flags ${flagNames(flags)})`);
      return;
    }
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
        this.addr = addr;
        this.kind = flags & ~CONTINUE;
        if (this.block === null) this.giveUp(this.recAt, 'CONTINUE page record with no RAM block named before it');
        else this.pageFor();
        return;
      case MEM_SIZE:
        if (this.memSize !== null) this.giveUp(this.recAt, 'second MEM_SIZE record');
        else {
          this.memSize = this.remaining = addr;
          this.state = addr > 0 ? S_BLOCK_LEN : S_RECORD;
        }
        return;
      case EOS:
        this.state = S_AFTER_EOS;
        return;
      case MULTIFD_FLUSH:
        return; // no payload
      default:
        this.giveUp(this.recAt, `unsupported RAM record flags 0x${flags.toString(16)} (${flagNames(flags)})`);
    }
  }

  /** The header named its block: check the page lies inside it, then expect the payload or the fill byte. */
  private pageFor(): void {
    const block = this.block!;
    if (this.addr + PAGE_SIZE <= block.bytes) this.state = this.kind === PAGE ? S_PAGE : S_FILL;
    else
      this.giveUp(
        this.recAt,
        `page at 0x${this.addr.toString(16)} beyond RAM block "${block.id}" (${block.bytes} bytes)`,
      );
  }

  /** Search head bytes (after the magic) for the ram START section header; parse records right after it. */
  private searchHead(d: Uint8Array): void {
    const { consumed, start } = this.ramStart.push(d, this.pos);
    this.pos += consumed;
    if (start !== null) {
      this.ramId = start.ramId;
      if (start.version === RAM_VERSION) this.state = S_RECORD;
      else this.giveUp(8 + start.at, `ram section version ${start.version} unsupported (expected ${RAM_VERSION})`);
    } else if (this.ramStart.exhausted) this.giveUp(8, `no ram START section in the first ${HEAD_LIMIT} bytes`);
  }
}
