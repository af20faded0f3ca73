// Read side of one committed checkpoint: a part's bytes whole, streamed, or materialised into a scratch file.
import { closeSync, openSync, writeSync } from 'node:fs';
import { IntegrityError } from '../core/errors.js';
import type { Manifest, PartEntry } from './manifest.js';
import { checkedBytes, type ChunkReader, partBytes } from './part-reader.js';
import type { CheckpointSource } from './types.js';

/** One committed checkpoint opened for reading; every chunk read is hash-checked. */
export class CheckpointReader implements CheckpointSource {
  constructor(
    private readonly chunks: ChunkReader,
    readonly manifest: Manifest,
  ) {}

  /** The checkpoint's sequence number. */
  get seq(): number {
    return this.manifest.seq;
  }

  /** The workload step the checkpoint holds. */
  get step(): number {
    return this.manifest.step;
  }

  /** Part names in the order they were put. */
  parts(): string[] {
    return this.manifest.parts.map((p) => p.name);
  }

  private part(name: string): PartEntry {
    const p = this.manifest.parts.find((x) => x.name === name);
    if (!p)
      throw new IntegrityError(`checkpoint ${this.seq} has no part "${name}" (it has: ${this.parts().join(', ')})`);
    return p;
  }

  /** The whole part's bytes in ~1 MiB pieces, checked against the part's digest (IntegrityError before the last piece). */
  private bytes(name: string): Generator<Buffer> {
    const p = this.part(name);
    return checkedBytes(partBytes(this.chunks, p), p.sha256, `checkpoint ${this.seq} part "${name}"`);
  }

  /** The part's bytes in one buffer. */
  get(name: string): Promise<Buffer> {
    return new Promise((resolve) => {
      const p = this.part(name);
      resolve(Buffer.concat([...this.bytes(name)], p.size));
    });
  }

  /** The part's bytes in ~1 MiB pieces (a page-split stream is rebuilt byte for byte on the way), read lazily. */
  stream(name: string): AsyncIterable<Buffer> {
    return lazyAsync(() => this.bytes(name));
  }

  /** The part's SHA-256 as the manifest records it (undefined: an older manifest without part digests). */
  digest(name: string): string | undefined {
    return this.part(name).sha256;
  }

  /** The part's logical size in bytes. */
  size(name: string): number {
    return this.part(name).size;
  }

  /** Not fsynced: a materialised part is scratch for a restore; the durable copy stays in the store. */
  writeFile(name: string, file: string): Promise<void> {
    return new Promise((resolve) => {
      const fd = openSync(file, 'w', 0o600);
      try {
        for (const piece of this.bytes(name)) writeSync(fd, piece);
      } finally {
        closeSync(fd);
      }
      resolve();
    });
  }
}

/** A sync generator made on the first read, as an async iterable (a throw while making or reading it rejects). */
function lazyAsync<T>(make: () => Generator<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]: () => {
      let it: Generator<T> | undefined;
      return {
        next: () => new Promise<IteratorResult<T>>((resolve) => resolve((it ??= make()).next())),
        return: (value?: unknown) =>
          new Promise<IteratorResult<T>>((resolve) => resolve(it?.return(value) ?? { done: true, value: value as T })),
      };
    },
  };
}
