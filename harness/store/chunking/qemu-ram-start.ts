// Finding the ram START section in a migration stream's head: the sections before it (configuration, other devices)
// are not parsed, so the head is copied as it arrives and searched for the ram section's 17-byte header.
import { be32, HEAD_LIMIT, RAM_TAG, SECTION_START, START_LEN } from './qemu-format.js';

/** The ram START header once found: where it starts in the head (bytes after the magic), its section id and version. */
export interface RamStart {
  at: number;
  ramId: number;
  version: number;
}

/** Searches the head of a stream, push by push, for the ram START header. */
export class RamStartFinder {
  private head = Buffer.allocUnsafe(4096);
  private headLen = 0;
  private scanFrom = 0;

  /**
   * Copy up to 4 KiB of `d` from `pos` into the head and search it. Returns how many bytes of `d` were consumed (up
   * to the end of the header when it was found) and the header, if found.
   */
  push(d: Uint8Array, pos: number): { consumed: number; start: RamStart | null } {
    const take = Math.min(d.length - pos, HEAD_LIMIT - this.headLen, 4096); // the push loop calls again for more
    if (this.headLen + take > this.head.length) {
      const next = Buffer.allocUnsafe(Math.min(HEAD_LIMIT, Math.max(2 * this.head.length, this.headLen + take)));
      this.head.copy(next, 0, 0, this.headLen);
      this.head = next;
    }
    this.head.set(d.subarray(pos, pos + take), this.headLen);
    const before = this.headLen;
    this.headLen += take;
    const h = this.findStart();
    if (h < 0) return { consumed: take, start: null };
    // The header ends inside this push (it was incomplete before it): parsing resumes right after it.
    const start = { at: h, ramId: be32(this.head, h + 1), version: be32(this.head, h + 13) };
    this.head = Buffer.alloc(0);
    return { consumed: h + START_LEN - before, start };
  }

  /** True once HEAD_LIMIT bytes were searched without finding the header. */
  get exhausted(): boolean {
    return this.headLen === HEAD_LIMIT;
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
