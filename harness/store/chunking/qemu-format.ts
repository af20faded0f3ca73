// The QEMU migration stream format (QEMU 7.2, migration/savevm.c + migration/ram.c), precopy with default
// capabilities, as far as the page splitter reads it:
//   "QEVM" be32(3) | head: configuration section, other START sections (meta, searched, not parsed)
//   | ram START: 0x01 be32(id) u8(3) "ram" be32(instance) be32(4) records, then optional footer 0x7e be32(id)
//   | ram PART / END: 0x02|0x03 be32(id) records [footer] ... | tail: device state, EOF, vmdesc JSON (meta)
//   records: be64(addr | flags), flags in the low 12 bits, until EOS:
//     MEM_SIZE 0x04: addr = total; blocks {u8 len, idstr, be64 used_length} until their lengths sum to the total
//     PAGE 0x08 / ZERO 0x02 (+ CONTINUE 0x20 = same block as before, else u8 len + idstr): 4096 bytes / 1 fill byte
//     EOS 0x10; MULTIFD_FLUSH 0x200 (QEMU 8.x with multifd, no payload). Anything else (XBZRLE, COMPRESS_PAGE, HOOK) falls back.

/** A RAM page payload. */
export const PAGE_SIZE = 4096;

/** Stream magic, "QEVM". */
export const MAGIC = 0x5145564d;
/** Stream version, and the ram section's version. */
export const VERSION = 3;
export const RAM_VERSION = 4;
/** Section types: START names the section, PART and END continue it. */
export const SECTION_START = 0x01;
export const SECTION_PART = 0x02;
export const SECTION_END = 0x03;
/** A section footer: 0x7e be32(section id). */
export const FOOTER = 0x7e;
/** RAM record flags (the low 12 bits of a record's be64). */
export const ZERO = 0x02;
export const MEM_SIZE = 0x04;
export const PAGE = 0x08;
export const EOS = 0x10;
export const CONTINUE = 0x20;
export const MULTIFD_FLUSH = 0x200;
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
export const HEAD_LIMIT = 4 * 2 ** 20;
/** 0x01 be32(id) 0x03 "ram" be32(instance) be32(version): 17 bytes; the tag sits at +5. */
export const START_LEN = 17;
/** The idstr of the ram section (length byte + "ram"). */
export const RAM_TAG = Buffer.from('\x03ram', 'latin1');
/** More RAM blocks than this in MEM_SIZE: not a stream the splitter understands. */
export const MAX_BLOCKS = 4096;

/** Big-endian u32 at `o`. */
export const be32 = (b: Uint8Array, o: number): number =>
  ((b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!) >>> 0;

/** Names of the RAM record flags set in `flags` (unknown bits in hex), for fallback reasons. */
export function flagNames(flags: number): string {
  const names = FLAG_NAMES.filter(([bit]) => flags & bit).map(([, name]) => name);
  const unknown = FLAG_NAMES.reduce((rest, [bit]) => rest & ~bit, flags);
  if (unknown !== 0) names.push(`0x${unknown.toString(16)}`);
  return names.join('|');
}

/** Receives one piece; the buffer may be a view into the pushed data or an internal buffer, valid during the call only. */
export type PieceFn = (bytes: Uint8Array) => void;
