// Store cost of repeated checkpoints of one micro-VM session, per ramCapture mode: logical vs stored bytes, pause, write.
// Run after tsc: node dist/bench/microvm-dedup.js [--checkpoints 8] [--every-ms 2000] [--ram stream|memfd] [--accel auto|kvm|tcg] [--ingest file|inline]
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Store } from '../harness/store/store.js';
import { createMicrovmTarget } from '../harness/targets/microvm/target.js';
import { benchArgs } from './args.js';

const { values } = benchArgs(
  'microvm-dedup',
  'Store cost of repeated checkpoints of one micro-VM session, per RAM capture mode: logical vs stored bytes, pause, write.',
  {
    checkpoints: 'checkpoints to take',
    'every-ms': 'time between checkpoints (ms)',
    ram: 'RAM capture: stream or memfd',
    accel: 'accelerator: auto, kvm or tcg',
    ingest: 'how RAM reaches the store: file or inline',
  },
  {
    options: {
      checkpoints: { type: 'string', default: '8' },
      'every-ms': { type: 'string', default: '2000' },
      ram: { type: 'string', default: 'stream' },
      accel: { type: 'string', default: 'auto' },
      ingest: { type: 'string', default: 'file' },
    },
  },
);
const count = Number(values.checkpoints);
const everyMs = Number(values['every-ms']);
const root = mkdtempSync(path.join(os.tmpdir(), 'mvdedup-'));
const store = Store.open(path.join(root, 'store'));
// Interrupted: QEMU children die with us (execa cleanup); remove the scratch store too.
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(130);
  });
}
const workDir = path.join(root, 'w');
mkdirSync(workDir, { mode: 0o700 });
const target = createMicrovmTarget({
  workDir,
  sessionDir: root,
  stepMs: 5,
  options: { accel: values.accel, ramCapture: values.ram, ramIngest: values.ingest },
});
const mib = (b: number): string => (b / 2 ** 20).toFixed(1).padStart(7);

try {
  await target.boot();
  let logical = 0;
  let stored = 0;
  console.log(`ramCapture ${values.ram}, ramIngest ${values.ingest}, one checkpoint every ${everyMs} ms`);
  console.log('  #   pause ms   write ms   logical MiB   stored MiB');
  for (let i = 1; i <= count; i++) {
    await new Promise((r) => setTimeout(r, everyMs));
    const t0 = process.hrtime.bigint();
    const writer = store.begin(0);
    const res = await target.checkpoint(writer, { skewMs: 0 });
    writer.step = res.step;
    const m = writer.commit(res.meta);
    const totalMs = Number(process.hrtime.bigint() - t0) / 1e6;
    logical += m.logicalBytes;
    stored += m.storedBytes;
    console.log(
      `${String(i).padStart(3)}   ${res.pauseMs.toFixed(0).padStart(8)}   ${(totalMs - res.pauseMs).toFixed(0).padStart(8)}       ${mib(m.logicalBytes)}      ${mib(m.storedBytes)}`,
    );
  }
  console.log(
    `total: logical ${mib(logical).trim()} MiB, stored ${mib(stored).trim()} MiB, dedup ratio ${(logical / Math.max(1, stored)).toFixed(2)}`,
  );
} finally {
  await target.destroy();
  store.close();
  rmSync(root, { recursive: true, force: true });
}
