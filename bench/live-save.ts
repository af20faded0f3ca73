// Live-save soundness (issue 16): one RAM-only microvm session checkpointed N times with a chosen ramSave; every
// checkpoint's RAM stream (QEMU's own scratch file, kept before the store ingests it) is restored into a bare QEMU and
// its first full heartbeat verified (nonce, not behind the checkpoint, the three digests of its step). A bad restore
// is then compared with the store's rebuilt stream (sha256) and restored from that too. Prints pause p50/p95, counts
// and the load average.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../harness/store/store.js';
import type { CheckpointSink } from '../harness/store/types.js';
import { resolveGuestEnv } from '../harness/targets/microvm/env.js';
import { parseMicrovmOptions } from '../harness/targets/microvm/options.js';
import { benchArgs } from './args.js';
import { bareFloorTrial } from './bare-floor.js';
import { microvmMaker, verifiedResume } from './measure.js';

const { values } = benchArgs(
  'live-save',
  'Checkpoints one RAM-only microvm session N times with the given ramSave and restores every checkpoint (its raw stream, in a bare QEMU), verifying the first full heartbeat; prints bad restores, pause p50/p95 and load.',
  {
    n: 'checkpoints (each restored and verified)',
    save: 'ramSave: live, paused or background',
    'precopy-max-ms': 'live save: pause the guest ourselves after this long (precopyMaxMs)',
    accel: 'accelerator: auto, kvm or tcg',
    keep: 'keep the work folder (bad streams stay in it)',
  },
  {
    options: {
      n: { type: 'string', default: '20' },
      save: { type: 'string', default: 'live' },
      'precopy-max-ms': { type: 'string', default: '2000' },
      accel: { type: 'string', default: 'auto' },
      keep: { type: 'boolean', default: false },
    },
  },
);

const root = mkdtempSync(path.join(os.tmpdir(), 'live-save-'));
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));
const load = (): string => os.loadavg()[0]!.toFixed(1);
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex').slice(0, 16);
const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};
const options = {
  accel: values.accel,
  disk: false,
  memoryMiB: 256,
  ramCapture: 'stream',
  ramSave: values.save,
  precopyMaxMs: Number(values['precopy-max-ms']),
};

/** Restore `file` in a bare QEMU: 'ok', or why not. */
async function tryRestore(env: Awaited<ReturnType<typeof resolveGuestEnv>>, file: string, nonce: string, step: number) {
  try {
    const t = await bareFloorTrial(
      { env, binary: 'qemu-system-x86_64', memoryMiB: 256, stepMs: 5, streamFile: file, dir: root },
      20_000,
    );
    return verifiedResume(t.hb, nonce, step) ? 'ok' : `unverified (step ${t.hb.step}, saved ${step})`;
  } catch (err) {
    return `failed: ${(err as Error).message.slice(0, 300).replace(/\s+/g, ' ')}`;
  }
}

async function main(): Promise<number> {
  const opts = parseMicrovmOptions(options);
  const store = Store.open(path.join(root, 'store'));
  const a = microvmMaker(root, options)();
  await a.target.boot();
  const env = await resolveGuestEnv(opts.qemuBinary, opts.accel, () => Promise.resolve(false));
  const nonce = a.hbs.find((h) => h.full)!.nonce;
  const pauses: number[] = [];
  const bad: string[] = [];
  let fallbacks = 0;
  const n = Number(values.n);
  for (let i = 0; i < n; i++) {
    await sleep(100 + Math.floor(Math.random() * 400));
    const kept = path.join(root, `ram-${i}.stream`);
    const writer = store.begin(i);
    const sink: CheckpointSink = {
      put: (name, data, o) => writer.put(name, data, o),
      putFile: (name, file, o) => {
        if (name === 'ram') copyFileSync(file, kept);
        return writer.putFile(name, file, o);
      },
    };
    const res = await a.target.checkpoint(sink, { skewMs: 0 });
    writer.step = res.step;
    writer.commit(res.meta);
    pauses.push(res.pauseMs);
    if (res.meta['precopyFallback'] === 1) fallbacks++;
    const verdict = await tryRestore(env, kept, nonce, res.step);
    let line = `${i + 1}/${n}: pause ${res.pauseMs.toFixed(0)} ms, step ${res.step}, fallback ${String(res.meta['precopyFallback'])}, restore ${verdict}, load ${load()}`;
    if (verdict !== 'ok') {
      const rebuilt = await store.reader(store.latest()!).get('ram');
      const fromStore = path.join(root, `ram-${i}.store`);
      await store.reader(store.latest()!).writeFile('ram', fromStore);
      line += `; scratch sha ${sha(readFileSync(kept))} store sha ${sha(rebuilt)}; again from scratch: ${await tryRestore(env, kept, nonce, res.step)}; from store: ${await tryRestore(env, fromStore, nonce, res.step)}`;
      bad.push(line);
    } else rmSync(kept);
    process.stderr.write(`${line}\n`);
  }
  await a.target.destroy();
  store.close();
  process.stdout.write(
    `live-save: ramSave ${values.save}, n ${n}, bad ${bad.length}, fallbacks ${fallbacks}, pause p50 ${quantile(pauses, 0.5).toFixed(0)} ms / p95 ${quantile(pauses, 0.95).toFixed(0)} ms, load ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n${bad.join('\n')}\n`,
  );
  return bad.length === 0 ? 0 : 1;
}

main().then(
  (code) => {
    if (!values.keep) rmSync(root, { recursive: true, force: true });
    else process.stderr.write(`kept ${root}\n`);
    process.exit(code);
  },
  (err: unknown) => {
    process.stderr.write(`live-save: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(4);
  },
);
