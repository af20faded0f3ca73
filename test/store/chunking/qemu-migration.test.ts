// QEMU migration stream splitter: exact split of hand-built streams, fallback on what it cannot parse, lossless for any
// input and push segmentation; on real QEMU streams, few meta bytes and page payloads that dedup between checkpoints.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { hasQemu } from '../../helpers/qemu.js';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng, type Rng } from '../../../harness/stats/random.js';
import { PAGE_SIZE } from '../../../harness/store/chunking/qemu-format.js';
import { MigrationSplitter } from '../../../harness/store/chunking/qemu-migration.js';
import type { CheckpointSink, PartData } from '../../../harness/store/types.js';
import { createMicrovmTarget } from '../../../harness/targets/microvm/target.js';
import { fixturePath } from '../../helpers/paths.js';
import { matching } from '../../helpers/match.js';

const ZERO = 0x02,
  MEM_SIZE = 0x04,
  PAGE = 0x08,
  EOS = 0x10,
  CONT = 0x20;
const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

// ---------------------------------------------------------------------------------------------------------------
// Splitting with a given push segmentation, checking every piece against the input as it arrives.

interface Split {
  /** Every piece matched the input at its offset, and the pieces cover the input exactly. */
  lossless: boolean;
  pageHashes: string[];
  meta: Buffer;
  s: MigrationSplitter;
}

/** Push sizes: a function of the push index (and the RNG) returning a size >= 1. */
type Sizes = (i: number) => number;

function split(input: Buffer, sizes: Sizes = () => input.length || 1): Split {
  let off = 0;
  let lossless = true as boolean; // cleared by the callbacks below
  const pageHashes: string[] = [];
  const metaParts: Buffer[] = [];
  const check = (b: Uint8Array): void => {
    if (!Buffer.from(b.buffer, b.byteOffset, b.length).equals(input.subarray(off, off + b.length))) lossless = false;
    off += b.length;
  };
  const s = new MigrationSplitter(
    (b) => {
      check(b);
      metaParts.push(Buffer.from(b));
    },
    (b) => {
      if (b.length !== PAGE_SIZE) lossless = false;
      check(b);
      pageHashes.push(sha(b));
    },
  );
  for (let i = 0, at = 0; at < input.length; i++) {
    const n = sizes(i);
    s.push(input.subarray(at, at + n));
    at += n;
  }
  s.end();
  return { lossless: lossless && off === input.length, pageHashes, meta: Buffer.concat(metaParts), s };
}

/** Random push sizes mixing 1-byte, page-edge and large odd sizes. */
function mixedSizes(rng: Rng, large: number): Sizes {
  const edges = [1, 2, 3, 5, 7, 8, 9, 4095, 4096, 4097, 4103, 4104, 4105];
  return () => {
    const r = rng.next();
    if (r < 0.3) return edges[rng.int(0, edges.length - 1)]!;
    if (r < 0.5) return rng.int(1, 64);
    return rng.int(1, large) | 1;
  };
}

function randomBytes(n: number, seed: number): Buffer {
  const rng = createRng(seed);
  const b = Buffer.alloc(n);
  for (let i = 0; i + 4 <= n; i += 4) b.writeUInt32LE(rng.uint32(), i);
  return b;
}

// ---------------------------------------------------------------------------------------------------------------
// A hand-built stream in QEMU 7.2's framing.

class Builder {
  private readonly parts: Buffer[] = [];
  length = 0;
  bytes(b: Uint8Array): this {
    this.parts.push(Buffer.from(b));
    this.length += b.length;
    return this;
  }
  u8(n: number): this {
    return this.bytes(Buffer.from([n]));
  }
  be32(n: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return this.bytes(b);
  }
  be64(addr: number, flags = 0): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64BE(BigInt(addr) | BigInt(flags));
    return this.bytes(b);
  }
  /** u8 length + latin1 bytes (section and RAM block names). */
  str(s: string): this {
    return this.u8(s.length).bytes(Buffer.from(s, 'latin1'));
  }
  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** A page full of byte patterns that look like records and section headers (zero pages, EOS, footer, ram START). */
function lookalikePage(): Buffer {
  const b = new Builder();
  while (b.length < PAGE_SIZE) {
    b.be64(0x1000, ZERO | CONT)
      .u8(0)
      .be64(0, EOS)
      .u8(0x7e)
      .be32(2)
      .u8(0x02)
      .be32(2)
      .be64(0x2000, PAGE)
      .str('pc.ram');
    b.u8(0x01).be32(2).str('ram').be32(0).be32(4).be64(0x12000, MEM_SIZE).bytes(Buffer.from('QEVM'));
  }
  return b.build().subarray(0, PAGE_SIZE);
}
const PAGE_A = Buffer.alloc(PAGE_SIZE, 0xa1);
const PAGE_B = lookalikePage();
const PAGE_C = randomBytes(PAGE_SIZE, 3);

interface Variant {
  footers?: boolean;
  ramVersion?: number;
  /** Flags and address of the PART section's second record (a CONTINUE page of pc.ram at 0x1000). */
  secondFlags?: number;
  secondAddr?: number;
  /** Block named by the PART section's page of the rom block. */
  romName?: string;
  /** The PART section's first record says CONTINUE (no block named before it in the stream). */
  firstContinue?: boolean;
  partId?: number;
  startFooterId?: number;
  /** Size of the rom block in the block list (MEM_SIZE still says 0x12000 in total). */
  romListed?: number;
}

interface Minimal {
  buf: Buffer;
  /** Offsets: end of the ram START header, the PART header, each PART record, the END of the RAM part. */
  startEnd: number;
  part: number;
  rec: number[];
  ramEnd: number;
  /** Stream offsets where each page payload ends (in order). */
  pageEnds: number[];
}

/** Magic, configuration, ram START (MEM_SIZE + blocks), PART, END, a device section, EOF and a vmdesc. */
function minimal(v: Variant = {}): Minimal {
  const b = new Builder();
  const pageEnds: number[] = [];
  const page = (p: Buffer): void => {
    b.bytes(p);
    pageEnds.push(b.length);
  };
  const footer = (id = 2): void => {
    if (v.footers ?? true) b.u8(0x7e).be32(id);
  };
  b.bytes(Buffer.from('QEVM')).be32(3);
  b.u8(0x07).be32(11).bytes(Buffer.from('microvm\x03ram', 'latin1')); // configuration: machine name, with a "\x03ram" decoy
  b.u8(0x01)
    .be32(2)
    .str('ram')
    .be32(0)
    .be32(v.ramVersion ?? 4);
  const startEnd = b.length;
  b.be64(0x12000, MEM_SIZE)
    .str('pc.ram')
    .be64(0x10000)
    .str('rom')
    .be64(v.romListed ?? 0x2000);
  b.be64(0, EOS);
  footer(v.startFooterId);
  const part = b.length;
  b.u8(0x02).be32(v.partId ?? 2);
  const rec: number[] = [b.length];
  if (v.firstContinue) b.be64(0, PAGE | CONT);
  else b.be64(0, PAGE).str('pc.ram');
  page(PAGE_A);
  rec.push(b.length);
  b.be64(v.secondAddr ?? 0x1000, v.secondFlags ?? PAGE | CONT);
  page(PAGE_B);
  rec.push(b.length);
  b.be64(0x2000, ZERO | CONT).u8(0);
  rec.push(b.length);
  b.be64(0x3000, ZERO | CONT).u8(0);
  rec.push(b.length);
  b.be64(0, PAGE).str(v.romName ?? 'rom');
  page(PAGE_C);
  b.be64(0, EOS);
  footer();
  b.u8(0x03).be32(2);
  b.be64(0xf000, PAGE).str('pc.ram');
  page(PAGE_A); // same content as the first page: dedups
  b.be64(0x1000, ZERO).str('rom').u8(0);
  b.be64(0, EOS);
  footer();
  const ramEnd = b.length;
  // A device section (not length-prefixed) whose bytes look like RAM records and a ram START header, then EOF + vmdesc.
  b.u8(0x04)
    .be32(3)
    .str('timer')
    .be32(0)
    .be32(2)
    .be64(0x4000, PAGE | CONT)
    .u8(0x01)
    .be32(2)
    .str('ram')
    .be32(0)
    .be32(4);
  footer(3);
  const json = Buffer.from('{"page_size": 4096, "devices": []}');
  b.u8(0x00).u8(0x06).be32(json.length).bytes(json);
  return { buf: b.build(), startEnd, part, rec, ramEnd, pageEnds };
}

describe('MigrationSplitter on hand-built streams', () => {
  const m = minimal();
  const want = [PAGE_A, PAGE_B, PAGE_C, PAGE_A].map(sha);

  it('splits a minimal stream exactly: known pages, zero pages, meta bytes, RAM size and blocks', () => {
    const r = split(m.buf);
    expect(r.lossless).toBe(true);
    expect(r.s.fallback).toBeNull();
    expect(r.pageHashes).toEqual(want);
    expect(r.s.stats()).toEqual({
      pages: 4,
      zeroPages: 3,
      metaBytes: m.buf.length - 4 * PAGE_SIZE,
      streamBytes: m.buf.length,
      ramBytes: 0x12000,
      fallback: null,
    });
    expect(r.s.blocks).toEqual([
      { id: 'pc.ram', bytes: 0x10000 },
      { id: 'rom', bytes: 0x2000 },
    ]);
    expect(r.s.metaBytes).toBe(m.buf.length - 16_384);
  });

  it('gives the same pieces for any push segmentation, including 1-byte pushes', () => {
    const whole = split(m.buf);
    const rng = createRng(11);
    const schedules: Sizes[] = [() => 1, () => 2, () => 4095, () => 4097, () => 9];
    for (let k = 0; k < 40; k++) schedules.push(mixedSizes(rng, 6000));
    for (const sizes of schedules) {
      const r = split(m.buf, sizes);
      expect(r.lossless).toBe(true);
      expect(r.pageHashes).toEqual(want);
      expect(r.meta.equals(whole.meta)).toBe(true);
      expect(r.s.stats()).toEqual(whole.s.stats());
    }
  });

  it('passes a page lying wholly inside one push as a view into it (no copy)', () => {
    const views: boolean[] = [];
    const s = new MigrationSplitter(
      () => {},
      (b) => views.push(b.buffer === m.buf.buffer),
    );
    s.push(m.buf);
    s.end();
    expect(views).toEqual([true, true, true, true]);
  });

  it('parses a stream without section footers (old machine types)', () => {
    const r = split(minimal({ footers: false }).buf, mixedSizes(createRng(5), 3000));
    expect(r.lossless).toBe(true);
    expect(r.s.fallback).toBeNull();
    expect(r.pageHashes).toEqual(want);
  });

  // Each variant breaks the grammar at one known place: everything from there on is meta, the pages before it stay.
  const broken: Array<[string, Variant, (x: Minimal) => number, RegExp, number]> = [
    ['an XBZRLE page', { secondFlags: 0x40 | CONT }, (x) => x.rec[1]!, /XBZRLE/, 1],
    ['a compressed page', { secondFlags: 0x100 | CONT }, (x) => x.rec[1]!, /COMPRESS_PAGE/, 1],
    ['an RDMA hook', { secondFlags: 0x80 }, (x) => x.rec[1]!, /HOOK/, 1],
    ['an unknown flag', { secondFlags: 0x400 | PAGE | CONT }, (x) => x.rec[1]!, /flags 0x428/, 1],
    ['PAGE and ZERO together', { secondFlags: PAGE | ZERO | CONT }, (x) => x.rec[1]!, /ZERO\|PAGE\|CONTINUE/, 1],
    ['a page beyond its block', { secondAddr: 0x10000 }, (x) => x.rec[1]!, /beyond RAM block "pc.ram"/, 1],
    ['an unknown RAM block', { romName: 'rox' }, (x) => x.rec[4]!, /unknown RAM block "rox"/, 2],
    ['CONTINUE before any block', { firstContinue: true }, (x) => x.rec[0]!, /CONTINUE/, 0],
    ['another section inside the RAM part', { partId: 9 }, (x) => x.part, /section type 0x2 id 9/, 0],
    ['a footer naming another section', { startFooterId: 7 }, (x) => x.part - 5, /footer names section 7/, 0],
    ['an unsupported ram section version', { ramVersion: 5 }, (x) => x.startEnd - 17, /version 5/, 0],
    [
      'blocks overrunning MEM_SIZE',
      { romListed: 0x3000 },
      (x) => x.startEnd + 8 + 7 + 8 + 4,
      /RAM block "rom" size 12288 does not fit/,
      0,
    ],
  ];
  it.each(broken)(
    'falls back at %s: reason and offset recorded, the rest is meta, still lossless',
    (_name, variant, at, reason, pages) => {
      const x = minimal(variant);
      const whole = split(x.buf);
      expect(whole.lossless).toBe(true);
      expect(whole.s.fallback).toEqual({ offset: at(x), reason: matching(reason) });
      expect(whole.s.pages).toBe(pages);
      expect(whole.s.metaBytes).toBe(x.buf.length - pages * PAGE_SIZE);
      const r = split(x.buf, mixedSizes(createRng(pages + 1), 700));
      expect(r.lossless).toBe(true);
      expect(r.s.stats()).toEqual(whole.s.stats());
    },
  );

  it('rejects a bad magic or version at its offset', () => {
    const bad = Buffer.from(m.buf);
    bad.write('QEVN', 0, 'latin1');
    expect(split(bad, () => 3).s.fallback).toEqual({ offset: 0, reason: matching(/magic/) });
    const v2 = Buffer.from(m.buf);
    v2.writeUInt32BE(2, 4);
    const r = split(v2, () => 1);
    expect(r.lossless).toBe(true);
    expect(r.s.fallback).toEqual({ offset: 4, reason: matching(/version 2/) });
    expect(r.s.metaBytes).toBe(v2.length);
  });

  it('truncated anywhere: lossless, and a fallback exactly when the cut precedes the end of the RAM part', () => {
    const rng = createRng(21);
    const inPage = (o: number) => m.pageEnds.some((end) => o > end - PAGE_SIZE && o < end);
    for (let cut = 0; cut <= m.buf.length; cut++) {
      if (inPage(cut) && cut % 509 !== 0) continue; // every structural offset, a sample inside pages
      const input = m.buf.subarray(0, cut);
      const r = split(input, mixedSizes(rng, 3000));
      expect(r.lossless).toBe(true);
      expect(r.s.pages).toBe(m.pageEnds.filter((e) => e <= cut).length);
      if (cut >= m.ramEnd) expect(r.s.fallback).toBeNull();
      else {
        expect(r.s.fallback?.reason).toMatch(/stream ends/);
        expect(r.s.fallback!.offset).toBeLessThanOrEqual(cut);
      }
    }
  });

  it('random bytes, random bytes after a valid header, and empty input are all lossless fallbacks', () => {
    const noise = randomBytes(300_001, 9);
    const a = split(noise, mixedSizes(createRng(1), 20_000));
    expect(a.lossless).toBe(true);
    expect(a.s.fallback).toEqual({ offset: 0, reason: matching(/magic/) });
    expect(a.s.metaBytes).toBe(noise.length);

    const afterMagic = Buffer.concat([m.buf.subarray(0, 8), noise]);
    const b = split(afterMagic, mixedSizes(createRng(2), 20_000));
    expect(b.lossless).toBe(true);
    expect(b.s.fallback).toEqual({ offset: 8, reason: matching(/before the ram START/) });

    const afterStart = Buffer.concat([m.buf.subarray(0, m.startEnd), noise]);
    const c = split(afterStart, mixedSizes(createRng(3), 20_000));
    expect(c.lossless).toBe(true);
    expect(c.s.fallback?.offset).toBe(m.startEnd);
    expect(c.s.pages).toBe(0);

    const e = split(Buffer.alloc(0));
    expect(e.lossless).toBe(true);
    expect(e.s.fallback).toEqual({ offset: 0, reason: matching(/ends before/) });
  });

  it('gives up the head search after 4 MiB without a ram START section', () => {
    const head = Buffer.concat([m.buf.subarray(0, 8), Buffer.alloc(4 * 2 ** 20 + 100)]);
    const r = split(head, () => 1 << 20);
    expect(r.lossless).toBe(true);
    expect(r.s.fallback).toEqual({
      offset: 8,
      reason: matching(/no ram START section in the first 4194304 bytes/),
    });
  });

  it('refuses a push after end()', () => {
    const s = new MigrationSplitter(
      () => {},
      () => {},
    );
    s.end();
    expect(() => s.push(new Uint8Array(1))).toThrow(/after end/);
  });
});

const fixture = fixturePath('qemu-migration', 'microvm-7.2-spliced.bin');

describe('MigrationSplitter on real QEMU 7.2 framing (fixture)', () => {
  const buf = readFileSync(fixture);
  const stats = {
    pages: 5,
    zeroPages: 14,
    metaBytes: 19_918,
    streamBytes: 40_398,
    ramBytes: 268_513_280,
    fallback: null,
  };

  it('splits the spliced real stream exactly, for any push segmentation', () => {
    const whole = split(buf);
    expect(whole.lossless).toBe(true);
    expect(whole.s.stats()).toEqual(stats);
    expect(whole.s.blocks.map((b) => b.id)).toEqual([
      'microvm.ram',
      '/rom@etc/acpi/tables',
      'pc.bios',
      '/rom@etc/table-loader',
      '/rom@etc/acpi/rsdp',
    ]);
    expect(whole.s.blocks[0]!.bytes).toBe(256 * 2 ** 20);
    for (const sizes of [() => 1, mixedSizes(createRng(4), 9000), mixedSizes(createRng(6), 50_000)]) {
      const r = split(buf, sizes);
      expect(r.lossless).toBe(true);
      expect(r.pageHashes).toEqual(whole.pageHashes);
      expect(r.s.stats()).toEqual(stats);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Real QEMU: two streams from one running guest, a couple of seconds apart.

const qemuPresent = hasQemu();
if (!qemuPresent) console.warn('skipping real QEMU migration stream tests: qemu-system-x86_64 not found');

/** TEST DOUBLE for the store: keeps the 'ram' part (the migration stream) in memory, drops the rest. */
class RamCapture implements CheckpointSink {
  ram: Buffer | undefined;
  async put(_name: string, data: PartData): Promise<void> {
    if (!(data instanceof Uint8Array)) for await (const _ of data);
  }
  async putFile(name: string, file: string): Promise<void> {
    if (name === 'ram') this.ram = await readFile(file);
  }
}

describe.skipIf(!qemuPresent)('MigrationSplitter on real QEMU streams (TCG)', () => {
  let root = '';
  afterAll(async () => {
    if (root !== '') await rm(root, { recursive: true, force: true });
  });

  it('splits two checkpoints of one guest losslessly into few meta bytes and pages that dedup between them', async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'qmig-'));
    const workDir = path.join(root, 'w');
    await mkdir(workDir, { mode: 0o700 });
    const target = createMicrovmTarget({
      workDir,
      sessionDir: path.join(root, 'session'),
      stepMs: 5,
      options: { accel: 'tcg', disk: false },
    });
    const streams: Buffer[] = [];
    try {
      await target.boot();
      for (let i = 0; i < 2; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 2000));
        const sink = new RamCapture();
        await target.checkpoint(sink, { skewMs: 0 });
        expect(sink.ram).toBeDefined();
        streams.push(sink.ram!);
      }
    } finally {
      await target.destroy();
    }

    const splits = streams.map((buf, i) => {
      const r = split(buf, mixedSizes(createRng(100 + i), 200_000));
      expect(r.lossless).toBe(true);
      expect(r.s.fallback).toBeNull();
      const { ramBytes, pages, zeroPages, metaBytes } = r.s;
      expect(r.s.blocks.find((b) => b.id === 'microvm.ram')?.bytes).toBe(256 * 2 ** 20);
      expect(ramBytes).toBe(r.s.blocks.reduce((sum, b) => sum + b.bytes, 0));
      // Precopy sends every page at least once (the guest is stopped: nothing dirties a page twice).
      expect(pages + zeroPages).toBeGreaterThanOrEqual(ramBytes! / PAGE_SIZE);
      expect(pages + zeroPages).toBeLessThanOrEqual((1.1 * ramBytes!) / PAGE_SIZE);
      expect(pages).toBeGreaterThan(1000);
      expect(metaBytes).toBeLessThan(0.05 * buf.length);
      expect(metaBytes).toBe(buf.length - pages * PAGE_SIZE);
      return r;
    });
    // The same pieces whatever the push sizes.
    expect(split(streams[1]!).pageHashes).toEqual(splits[1]!.pageHashes);

    const first = new Set(splits[0]!.pageHashes);
    const second = splits[1]!.pageHashes;
    expect(second.filter((h) => first.has(h)).length / second.length).toBeGreaterThan(0.8);
  });
});
