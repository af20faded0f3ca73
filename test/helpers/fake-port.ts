// A unix socket standing in for a QEMU serial chardev (the guest's side of a port): the lines the host writes, and a
// way to answer as the guest. The host side (clock-resync.ts, guest-probe.ts) connects to it as to QEMU's.
import { createServer, type Server, type Socket } from 'node:net';

export interface FakePort {
  /** Every non-empty line the host wrote, in order. */
  lines: string[];
  /** Write `text` as the guest (the host must have connected). */
  write(text: string): void;
  close(): void;
}

/** Listen on `sock` as a guest's serial port; resolves once listening. */
export async function fakePort(sock: string): Promise<FakePort> {
  const lines: string[] = [];
  let guest: Socket | undefined;
  const server: Server = createServer((s) => {
    guest = s;
    s.setEncoding('utf8');
    s.on('data', (d: string) => lines.push(...d.split('\n').filter((x) => x !== '')));
  });
  await new Promise<void>((r) => server.listen(sock, r));
  return {
    lines,
    write(text) {
      if (guest === undefined) throw new Error(`nothing connected to ${sock}`);
      guest.write(text);
    },
    close: () => void server.close(),
  };
}
