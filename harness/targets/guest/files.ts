// Hashing a guest file (image parts, kernel) for the recipe hash and the report.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 hex of a file, streamed. */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest('hex');
}
