// The peer outside the sandbox for the probe's tcp-peer class: a TCP echo on 127.0.0.1 that the matrix runs in its own
// process (not a session's: a session's SIGKILL must not take the peer with it), named to the probe by SOAK_PROBE_PEER.
import { createServer, type Server, type Socket } from 'node:net';

/** The probe's variable: `<ipv4>:<port>` of the echo (vm-images/agent/probe.h PROBE_PEER_ENV). */
export const PROBE_PEER_ENV = 'SOAK_PROBE_PEER';

/** A running echo: its address for the probe, and close(). */
export interface EchoPeer {
  address: string;
  close(): Promise<void>;
}

/** Start an echo on 127.0.0.1 (an ephemeral port): each connection gets back the bytes it sends. */
export async function startEchoPeer(): Promise<EchoPeer> {
  const conns = new Set<Socket>();
  const server: Server = createServer((c) => {
    conns.add(c);
    c.on('error', () => {}); // a reset by a killed session is its fact to report, not the echo's
    c.on('close', () => conns.delete(c));
    c.pipe(c);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of conns) c.destroy();
        server.close(() => resolve());
      }),
  };
}
