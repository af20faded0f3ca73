// RAM + device state transfer over QMP migration on a unix socket: save into a file, load from a stream of chunks.
import { createWriteStream, rmSync } from 'node:fs';
import net from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { SoakError, TargetError } from '../../core/errors.js';
import type { QmpClient } from './qmp.js';

interface MigrationInfo {
  status?: string;
  'error-desc'?: string;
}

/** Lift the default 128 MiB/s migration cap so the transfer, not the throttle, sets the pause. */
export async function raiseMigrationBandwidth(qmp: QmpClient): Promise<void> {
  await qmp.execute('migrate-set-parameters', { 'max-bandwidth': 64 * 2 ** 30, 'downtime-limit': 2000 });
}

/** Poll query-migrate until completed; throws on failed/cancelled or timeout. */
async function waitMigration(
  qmp: QmpClient,
  what: string,
  deadline: number,
  giveUp: () => string | undefined,
): Promise<void> {
  for (;;) {
    const info = await qmp.execute<MigrationInfo>('query-migrate');
    if (info.status === 'completed') return;
    if (info.status === 'failed' || info.status === 'cancelled') {
      throw new TargetError(`${what}: migration ${info.status}${info['error-desc'] ? `: ${info['error-desc']}` : ''}`);
    }
    const reason = giveUp();
    if (reason !== undefined) throw new TargetError(`${what}: ${reason}`);
    if (Date.now() > deadline)
      throw new TargetError(`${what}: migration not completed within the timeout (status ${info.status ?? 'none'})`);
    await sleep(5);
  }
}

/**
 * Save the (paused) guest's RAM + device state: QEMU connects to our unix socket and we write the stream to `file`.
 * Returns the stream size in bytes. On any failure the partial file is removed and a TargetError thrown.
 */
export async function migrateToFile(
  qmp: QmpClient,
  socketPath: string,
  file: string,
  timeoutMs: number,
  onCompleted?: () => Promise<void>,
): Promise<number> {
  try {
    return await migrateInto(
      qmp,
      socketPath,
      (conn) => pipeline(conn, createWriteStream(file)),
      timeoutMs,
      onCompleted,
    );
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  }
}

/**
 * Save the guest's RAM + device state into `consume` as QEMU writes it (e.g. straight into the store, hashed
 * inline: no file, no second read). Returns the stream size in bytes; throws a TargetError if the migration or the
 * consumer fails (a consumer's SoakError, such as a store error, keeps its class). `onCompleted` runs as soon as QEMU
 * says the save is complete (all of it is written to the socket), while we may still be reading the stream: the guest
 * can be resumed there instead of after the last byte reached `consume`.
 */
export async function migrateInto(
  qmp: QmpClient,
  socketPath: string,
  consume: (stream: AsyncIterable<Buffer>) => Promise<unknown>,
  timeoutMs: number,
  onCompleted?: () => Promise<void>,
): Promise<number> {
  rmSync(socketPath, { force: true });
  const server = net.createServer();
  let bytes = 0;
  let failure: string | undefined;
  let consumerError: unknown;
  const received = new Promise<void>((resolve, reject) => {
    server.once('connection', (conn: net.Socket) => {
      server.close();
      const counted = (async function* () {
        for await (const c of conn as AsyncIterable<Buffer>) {
          bytes += c.length;
          yield c;
        }
      })();
      consume(counted).then(
        () => resolve(),
        (err: unknown) => {
          conn.destroy();
          consumerError = err;
          failure = `migration stream broke: ${err instanceof Error ? err.message : String(err)}`;
          reject(err instanceof SoakError ? err : new TargetError(`saving RAM state: ${failure}`, { cause: err }));
        },
      );
    });
  });
  received.catch(() => {});
  await new Promise<void>((resolve, reject) => server.listen(socketPath, resolve).once('error', reject));
  try {
    const deadline = Date.now() + timeoutMs;
    await qmp.execute('migrate', { uri: `unix:${socketPath}` });
    await waitMigration(qmp, 'saving RAM state', deadline, () => failure);
    if (onCompleted !== undefined) await onCompleted();
    const timer = new AbortController();
    try {
      await Promise.race([
        received,
        sleep(Math.max(0, deadline - Date.now()), undefined, { signal: timer.signal }).then(() => {
          throw new TargetError('saving RAM state: stream did not end after migration completed');
        }),
      ]);
    } finally {
      timer.abort(); // do not keep the event loop alive for the rest of the timeout
    }
    return bytes;
  } catch (err) {
    if (consumerError instanceof SoakError) throw consumerError; // e.g. the store's own error, with its exit code
    throw err;
  } finally {
    server.close();
    rmSync(socketPath, { force: true });
  }
}

/** Load RAM + device state into a QEMU started with `-incoming defer`: it listens, we connect and stream `data`. */
export async function migrateFromStream(
  qmp: QmpClient,
  socketPath: string,
  data: AsyncIterable<Uint8Array>,
  timeoutMs: number,
): Promise<number> {
  rmSync(socketPath, { force: true });
  const deadline = Date.now() + timeoutMs;
  await qmp.execute('migrate-incoming', { uri: `unix:${socketPath}` });
  const conn = await new Promise<net.Socket>((resolve, reject) => {
    const s = net.createConnection({ path: socketPath });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  }).catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    throw new TargetError(`loading RAM state: cannot connect to QEMU's incoming socket ${socketPath}: ${why}`, {
      cause: err,
    });
  });
  let bytes = 0;
  let failure: string | undefined;
  const counted = Readable.from(
    (async function* () {
      for await (const chunk of data) {
        bytes += chunk.length;
        yield chunk;
      }
    })(),
  );
  let cause: unknown;
  const sent = pipeline(counted, conn).catch((err: unknown) => {
    // QEMU closes its end once it has read the stream's end marker, possibly before our pipeline has finished:
    // a closed connection is judged by QEMU's own status (completed or failed), a failed source at once.
    if (connectionClosed(err)) return;
    cause = err;
    failure = `stream to QEMU broke: ${err instanceof Error ? err.message : String(err)}`;
  });
  try {
    await waitMigration(qmp, 'loading RAM state', deadline, () => failure);
    await sent;
    return bytes;
  } catch (err) {
    // A store error (e.g. IntegrityError on a corrupt chunk) keeps its own class and exit code.
    if (cause instanceof SoakError) throw cause;
    throw err;
  } finally {
    conn.destroy();
    rmSync(socketPath, { force: true });
  }
}

/** A pipeline error that only says the peer closed the socket (not a failure of the data's source). */
function connectionClosed(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ERR_STREAM_PREMATURE_CLOSE' || code === 'EPIPE' || code === 'ECONNRESET';
}
