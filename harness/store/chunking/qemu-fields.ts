// Fields of a stream that arrives in pushes: a field wholly inside the pushed buffer is read in place, one that
// straddles two pushes is assembled in a small scratch buffer first.

/** The read position in the current push, and `need`, which makes the next field readable at (fb, fo). */
export abstract class PushedFields {
  /** Stream offset of the pushed buffer's first byte, and the read position in it. */
  protected base = 0;
  protected pos = 0;
  /** A field straddling pushes is assembled in `scratch`; `need` points (fb, fo) at a complete field. */
  private readonly scratch = new Uint8Array(256);
  protected held = 0;
  protected fb: Uint8Array = this.scratch;
  protected fo = 0;
  /** Stream offset of the field `need` last started. */
  protected fieldAt = 0;

  /** Make `n` bytes available at (fb, fo): a view into `d`, or assembled in scratch across pushes (false: need more). */
  protected need(d: Uint8Array, n: number): boolean {
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
}
