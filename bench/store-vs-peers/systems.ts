// store-vs-peers: the systems under comparison, each behind one interface (init, ingest a checkpoint, restore one):
// our store in each RAM chunking and compression, restic, borg and casync at their stated settings.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Compression, Store } from '../../harness/store/store.js';
import type { Chunking } from '../../harness/store/types.js';
import { run } from './common.js';
import type { PartFile, Series, SeriesCheckpoint } from './series.js';

/** Chunkings of our store's 'ram' part: one run of ours each (per compression). A new mode = one more entry here. */
const OUR_RAM_CHUNKINGS = ['fixed', 'cdc', 'qemu-pages'] as const satisfies readonly Chunking[];
/** Our store's compressions: `none` is the one the dedup bar is judged on. */
const OUR_COMPRESSIONS = ['none', 'deflate', 'lz4'] as const satisfies readonly Compression[];
const THROWAWAY_PASSWORD = 'store-vs-peers-throwaway';

/** Where a system works: the series, its own repository folder and scratch. */
export interface Ctx {
  series: Series;
  seriesDir: string;
  repo: string;
  work: string;
}
/** One system under comparison. */
export interface System {
  id: string;
  /** Binary that must be on PATH (null: ours). */
  tool: string | null;
  settings: (c: Ctx) => Promise<string>;
  init: (c: Ctx) => Promise<void>;
  ingest: (c: Ctx, ck: SeriesCheckpoint) => Promise<void>;
  /** After the last ingest (ours closes its store: it is opened once, as a session host does). */
  done?: (c: Ctx) => Promise<void>;
  restore: (c: Ctx, ck: SeriesCheckpoint, out: string) => Promise<void>;
}

const CHUNKING_LABEL: Record<string, string> = {
  fixed: 'fixed 4 KiB',
  cdc: 'content-defined ~4 KiB (1-16 KiB)',
  'qemu-pages': 'QEMU stream parsed: 4 KiB page chunks (a changed page as its differing 256-byte blocks) + CDC meta',
  'qemu-pages-whole': 'QEMU stream parsed: 4 KiB page chunks, every new page whole (no deltas) + CDC meta',
};

/** Our store; `whole`: page-split without sub-page deltas (what the deltas add, in the same run). */
function ours(chunking: Chunking, compression: Compression, whole = false): System {
  let store: Store | undefined;
  const label = whole ? `${chunking}-whole` : chunking;
  return {
    id: `ours-${label}-${compression}`,
    tool: null,
    settings: () =>
      Promise.resolve(
        `ram ${CHUNKING_LABEL[label] ?? label}, rest fixed 4 KiB; ${compression === 'lz4' ? 'LZ4 blocks (default)' : compression === 'deflate' ? 'deflate-raw level 1' : 'no compression'}`,
      ),
    init: () => Promise.resolve(),
    ingest: async (c, ck) => {
      store ??= Store.open(c.repo, { compression, deltas: !whole });
      const writer = store.begin(ck.step);
      for (const p of ck.parts)
        await writer.putFile(p.name, path.join(c.seriesDir, ck.dir, p.name), {
          chunking: p.name === 'ram' ? chunking : 'fixed',
        });
      writer.commit({ series: ck.dir });
    },
    done: () => {
      store?.close();
      store = undefined;
      return Promise.resolve();
    },
    restore: async (c, ck, out) => {
      const store = Store.open(c.repo);
      try {
        const m = store.latest();
        if (m === null || m.seq !== ck.seq)
          throw new Error(`ours: latest checkpoint is ${m?.seq ?? 'none'}, expected ${ck.seq}`);
        const reader = store.reader(m);
        for (const name of reader.parts()) {
          mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
          await reader.writeFile(name, path.join(out, name));
        }
      } finally {
        store.close();
      }
    },
  };
}

const resticEnv = (c: Ctx): Record<string, string> => ({
  RESTIC_REPOSITORY: c.repo,
  RESTIC_PASSWORD: THROWAWAY_PASSWORD,
  RESTIC_CACHE_DIR: path.join(c.work, 'cache'),
});
const restic: System = {
  id: 'restic',
  tool: 'restic',
  settings: async (c) => {
    const cfg = JSON.parse(await run('restic', ['cat', 'config'], { env: resticEnv(c) })) as { version?: number };
    return `repo v${cfg.version}, compression auto (zstd, default); CDC 512 KiB-8 MiB (~1 MiB); AES-256 always on`;
  },
  init: async (c) => {
    await run('restic', ['init'], { env: resticEnv(c) });
  },
  ingest: async (c, ck) => {
    await run('restic', ['backup', '--quiet', '--tag', `ckpt-${ck.dir}`, '.'], {
      cwd: path.join(c.seriesDir, ck.dir),
      env: resticEnv(c),
    });
  },
  restore: async (c, ck, out) => {
    await run('restic', ['restore', 'latest', '--tag', `ckpt-${ck.dir}`, '--target', out], {
      env: resticEnv(c),
    });
  },
};

function borg(compression: 'lz4' | 'none'): System {
  const env = (c: Ctx): Record<string, string> => ({
    BORG_BASE_DIR: path.join(c.work, 'base'),
    BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK: 'yes',
    BORG_RELOCATED_REPO_ACCESS_IS_OK: 'yes',
  });
  return {
    id: `borg-${compression}`,
    tool: 'borg',
    settings: () =>
      Promise.resolve(
        `--compression ${compression}${compression === 'lz4' ? ' (default)' : ''}; buzhash CDC 19,23,21 (~2 MiB, default); --encryption none`,
      ),
    init: async (c) => {
      await run('borg', ['init', '--encryption', 'none', c.repo], { env: env(c) });
    },
    ingest: async (c, ck) => {
      await run('borg', ['create', '--compression', compression, `${c.repo}::ckpt-${ck.dir}`, '.'], {
        cwd: path.join(c.seriesDir, ck.dir),
        env: env(c),
      });
    },
    restore: async (c, ck, out) => {
      await run('borg', ['extract', `${c.repo}::ckpt-${ck.dir}`], { cwd: out, env: env(c) });
    },
  };
}

const casyncIndex = (c: Ctx, ck: SeriesCheckpoint, p: PartFile): string =>
  path.join(c.repo, 'indexes', ck.dir, `${p.name.replaceAll('/', '%')}.caibx`);
const casync: System = {
  id: 'casync',
  tool: 'casync',
  settings: () => Promise.resolve('one blob index per part; --chunk-size 4096 (1-16 KiB); zstd (default); sha512-256'),
  init: (c) => {
    mkdirSync(path.join(c.repo, 'indexes'), { recursive: true });
    return Promise.resolve();
  },
  ingest: async (c, ck) => {
    mkdirSync(path.join(c.repo, 'indexes', ck.dir), { recursive: true });
    for (const p of ck.parts)
      await run('casync', [
        'make',
        `--store=${path.join(c.repo, 'store')}`,
        '--chunk-size=4096',
        casyncIndex(c, ck, p),
        path.join(c.seriesDir, ck.dir, p.name),
      ]);
  },
  restore: async (c, ck, out) => {
    for (const p of ck.parts) {
      mkdirSync(path.dirname(path.join(out, p.name)), { recursive: true });
      await run('casync', [
        'extract',
        `--store=${path.join(c.repo, 'store')}`,
        casyncIndex(c, ck, p),
        path.join(out, p.name),
      ]);
    }
  },
};

/** Every system, in the order they run and are listed (ids: --systems). */
export const SYSTEMS: System[] = [
  ...OUR_COMPRESSIONS.flatMap((z) => OUR_RAM_CHUNKINGS.map((c) => ours(c, z))),
  ours('qemu-pages', 'none', true),
  restic,
  borg('lz4'),
  borg('none'),
  casync,
];
