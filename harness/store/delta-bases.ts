// The writer's delta bases: per page-split part, where each guest page sat in the newest checkpoint and its chunk, so
// the next checkpoint can store a page that changed a little as a delta against its previous version.
import { IntegrityError } from '../core/errors.js';
import { PageKeys } from './chunking/qemu-pages.js';
import type { Manifest } from './manifest.js';
import { type ChunkReader, pageKeys } from './read/part-reader.js';

/** Page keys of the newest checkpoint per part name: what this process last committed, else rebuilt from disk once. */
export class DeltaBases {
  private readonly byPart = new Map<string, PageKeys>();

  /** `newest`: the newest complete checkpoint on disk (read only when a part's keys are not known yet). */
  constructor(
    private readonly chunks: ChunkReader,
    private readonly newest: () => Manifest | null,
  ) {}

  /** Part `name`'s page keys in the newest checkpoint; empty when there is none or it cannot be read (pages go whole). */
  previous(name: string): PageKeys {
    let keys = this.byPart.get(name);
    if (keys === undefined) {
      keys = this.keysOf(this.newest(), name);
      this.byPart.set(name, keys);
    }
    return keys;
  }

  /** Rebuild the page keys of every page-split part of `newest` not known yet. */
  warm(newest: Manifest | null): void {
    for (const p of newest?.parts ?? [])
      if (p.layout?.kind === 'qemu-pages' && !this.byPart.has(p.name))
        this.byPart.set(p.name, this.keysOf(newest, p.name));
  }

  /** After a commit: part `name`'s keys in the checkpoint just written. */
  set(name: string, keys: PageKeys): void {
    this.byPart.set(name, keys);
  }

  /** The page keys of part `name` of checkpoint `m` (empty when it has no such page-split part or it cannot be read). */
  private keysOf(m: Manifest | null, name: string): PageKeys {
    const part = m?.parts.find((p) => p.name === name && p.layout?.kind === 'qemu-pages');
    try {
      return part ? pageKeys(this.chunks, part) : PageKeys.EMPTY;
    } catch (err) {
      if (!(err instanceof IntegrityError)) throw err;
      return PageKeys.EMPTY;
    }
  }
}
