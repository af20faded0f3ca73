// Ask a microvm guest's agent to hold between steps (before a checkpoint's capture) and wait for its acknowledgement.
import { HOLD_REQUEST } from '../guest/console.js';

/** Acknowledgements of hold requests: the console's `HOLD <step>` lines go to `acked`. */
export class HoldRequests {
  private pending: () => void = () => {};

  /** Called for each `HOLD <step>` line the console parsed. */
  acked(): void {
    this.pending();
  }

  /** Write the hold request with `write`; true once the agent acknowledged it (false after 1 s: capture anyway). */
  async request(write: (text: string) => void): Promise<boolean> {
    const acked = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 1000);
      this.pending = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
    write(HOLD_REQUEST);
    const ok = await acked;
    this.pending = () => {};
    return ok;
  }
}
