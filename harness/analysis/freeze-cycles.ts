// Freeze cycles: a 'fault' of kind freeze with no kill after it (SIGSTOP, then SIGCONT of the live session: nothing
// was killed or resumed). They are no kill-and-resume trial; the durability table gives them their own row. A freeze
// that outlasted the host timeout was SIGKILLed and resumed (a 'kill' event follows): that cycle is a trial.

/** The freeze and kill events of a fold, by cycle key (run * 2^32 + cycle id, as the accumulator keys cycles). */
export class FreezeCycles {
  private readonly frozen = new Set<number>();
  private readonly killed = new Set<number>();

  /** A freeze was delivered in cycle `key`. */
  froze(key: number): void {
    this.frozen.add(key);
  }

  /** A kill was sent in cycle `key`. */
  kill(key: number): void {
    this.killed.add(key);
  }

  /** This fold's cycle ids (keys less `base`), to hand on with a part's fold. */
  partial(base: number): { frozen: number[]; killed: number[] } {
    return { frozen: [...this.frozen].map((k) => k - base), killed: [...this.killed].map((k) => k - base) };
  }

  /** Add a part's ids, keyed from `base` (the current run's key of cycle 0). */
  append(p: { frozen: readonly number[]; killed: readonly number[] }, base: number): void {
    for (const c of p.frozen) this.frozen.add(base + c);
    for (const c of p.killed) this.killed.add(base + c);
  }

  /** Whether the finished row whose key is `key` is a freeze the session carried on from (no kill-resume trial). */
  thawed(key: number): boolean {
    return this.frozen.has(key) && !this.killed.has(key);
  }
}
