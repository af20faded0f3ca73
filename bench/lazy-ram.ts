// Issue 37, a candidate design measured: guest RAM mapped from a file. One memfd-mode checkpoint (its page-aligned RAM
// image and its device state, read out of the store) per guest size, then restored two ways, alternating:
//   eager:  today's memfd restore: a new QEMU's memfd is written with the whole image, then the device state is loaded;
//   mapped: the new QEMU maps the image file private (`memory-backend-file,share=off`: copy-on-write, the file is never
//           written); only the device state is loaded (x-ignore-shared: the saving QEMU sent no RAM pages), and pages
//           fault in from the page cache as the guest touches them.
// Each resume is verified (nonce, not behind the checkpoint, the three digests); `touched` is how much of the guest's
// RAM the QEMU process had mapped in when the heartbeat came (smaps_rollup Rss of the mapping, mapped mode). Not a
// product path: it measures whether a restore's RAM step can stop growing with the guest.
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Heartbeat } from '../harness/check/heartbeat.js';
import { Store } from '../harness/store/store.js';
import { FULL_HEARTBEAT_REQUEST } from '../harness/targets/guest/console.js';
import { readSessionEnv } from '../harness/targets/microvm/env-cache.js';
import { GuestPorts } from '../harness/targets/microvm/guest-ports.js';
import { memfdPath, writeStream } from '../harness/targets/microvm/memfd.js';
import { parseMicrovmOptions } from '../harness/targets/microvm/options.js';
import { QemuProcess } from '../harness/targets/microvm/qemu.js';
import { QmpClient } from '../harness/targets/microvm/qmp.js';
import { qemuSpec } from '../harness/targets/microvm/spec.js';
import { incomingDone } from '../harness/targets/microvm/template-boot.js';
import { benchArgs } from './args.js';
import { median, microvmMaker, verifiedResume } from './measure.js';

const { values } = benchArgs(
  'lazy-ram',
  'Restore a micro-VM RAM image eagerly (memfd written) against mapped from the file (copy-on-write), per guest size.',
  { sizes: 'guest RAM sizes in MiB, comma-separated', trials: 'restores per mode and size', accel: 'auto, kvm or tcg' },
  {
    options: {
      sizes: { type: 'string', default: '256,1024' },
      trials: { type: 'string', default: '5' },
      accel: { type: 'string', default: 'auto' },
    },
  },
);
const sizes = values.sizes.split(',').map(Number);
const trials = Number(values.trials);
if (sizes.some((s) => !Number.isInteger(s) || s < 128) || !Number.isInteger(trials) || trials < 1) {
  process.stderr.write('lazy-ram: --sizes takes MiB >= 128, --trials an integer >= 1\n');
  process.exit(3);
}
const sleep = (t: number): Promise<void> => new Promise((r) => setTimeout(r, t));
const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

type Mode = 'eager' | 'mapped';
interface Trial {
  ok: boolean;
  totalMs: number;
  ramMs: number;
  devMs: number;
  contToHbMs: number;
  touchedMiB: number;
}

/** One memfd-mode checkpoint of a `memoryMiB` guest: its RAM image and device-state files, the env, the nonce. */
async function capture(root: string, memoryMiB: number) {
  const options = { accel: values.accel, disk: false, memoryMiB, ramCapture: 'memfd' };
  const { target, hbs } = microvmMaker(root, options)();
  await target.boot();
  const nonce = hbs.find((h) => h.full)!.nonce;
  await sleep(300);
  const store = Store.open(path.join(root, 'store'));
  const writer = store.begin(0);
  const res = await target.checkpoint(writer, { skewMs: 0 });
  writer.step = res.step;
  writer.commit(res.meta);
  await target.destroy();
  const reader = store.reader(store.latest()!);
  const files = { ram: path.join(root, 'ram.img'), dev: path.join(root, 'dev.bin') };
  await reader.writeFile('ram', files.ram);
  await reader.writeFile('devstate', files.dev);
  store.close();
  const opts = parseMicrovmOptions(options);
  const env = readSessionEnv(root, opts.qemuBinary, opts.accel);
  if (env === undefined) throw new Error('the booted target saved no environment');
  return { opts, env, nonce, step: res.step, files };
}

/** Rss of QEMU's mapping of `file` (smaps), in MiB. */
function mappedMiB(pid: number, file: string): number {
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
  const at = smaps.findIndex((l) => l.endsWith(file));
  const rss = at < 0 ? undefined : smaps.slice(at + 1).find((l) => l.startsWith('Rss:'));
  return rss === undefined ? 0 : Number(/(\d+)/.exec(rss)![1]) / 1024;
}

/** Restore the captured checkpoint in a new QEMU, one way, to its first verified full heartbeat. */
async function restore(c: Awaited<ReturnType<typeof capture>>, root: string, mode: Mode): Promise<Trial> {
  const sock = (name: string): string => path.join(root, `${mode}-${name}`);
  for (const f of ['qmp.sock', 'probe.sock', 'clock.sock']) rmSync(sock(f), { force: true });
  const ports = GuestPorts.of(c.opts, false).sockets(sock);
  const place = { image: c.env.image, accel: c.env.accel.accel, stepMs: 5, tscKhz: c.env.tscKhz, disk: undefined };
  const spec = qemuSpec(c.opts, { ...place, qmpSocket: sock('qmp.sock'), incoming: true, ...ports });
  const hbs: Heartbeat[] = [];
  const t0 = performance.now();
  const qemu = new QemuProcess(mode === 'mapped' ? { ...spec, ramMemfd: false, ramFile: c.files.ram } : spec, (hb) =>
    hbs.push(hb),
  );
  try {
    const qmp = await QmpClient.connect(sock('qmp.sock'), { timeoutMs: 15_000, abortReason: () => qemu.exitReason() });
    await qmp.execute('migrate-set-capabilities', { capabilities: [{ capability: 'x-ignore-shared', state: true }] });
    const tQmp = performance.now();
    if (mode === 'eager') {
      const h = await open(await memfdPath(qemu.pid!), 'r+');
      try {
        await writeStream(h, createReadStream(c.files.ram, { highWaterMark: 4 << 20 }), statSync(c.files.ram).size);
      } finally {
        await h.close();
      }
    }
    const tRam = performance.now();
    await qmp.execute('migrate-incoming', { uri: `exec:cat ${c.files.dev}` });
    await incomingDone(qmp, qemu, 60_000, 'the device state');
    const tDev = performance.now();
    qemu.writeConsole(FULL_HEARTBEAT_REQUEST);
    await qmp.execute('cont');
    const again = setInterval(() => qemu.writeConsole(FULL_HEARTBEAT_REQUEST), 20);
    const deadline = Date.now() + 60_000;
    while (!hbs.some((h) => h.full) && Date.now() < deadline) await sleep(1);
    clearInterval(again);
    const tHb = performance.now();
    const hb = hbs.find((h) => h.full);
    const touchedMiB = mode === 'mapped' ? mappedMiB(qemu.pid!, c.files.ram) : 0;
    qmp.close();
    return {
      ok: hb !== undefined && verifiedResume(hb, c.nonce, c.step),
      totalMs: tHb - t0,
      ramMs: tRam - tQmp,
      devMs: tDev - tRam,
      contToHbMs: tHb - tDev,
      touchedMiB,
    };
  } finally {
    await qemu.kill();
  }
}

const r0 = (x: number): string => Math.round(x).toLocaleString('en-US');
process.stdout.write(`lazy-ram: ${trials} restores per mode and size, alternating; load ${load()} at the start\n`);
process.stdout.write(
  '| guest MiB | mode | verified | restore p50 ms | RAM step p50 | device state p50 | cont -> heartbeat p50 | touched MiB p50 |\n|---:|---|---:|---:|---:|---:|---:|---:|\n',
);
for (const size of sizes) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lazy-ram-'));
  try {
    const c = await capture(root, size);
    const runs: Record<Mode, Trial[]> = { eager: [], mapped: [] };
    for (let i = 0; i < trials; i++)
      for (const mode of ['eager', 'mapped'] as const) runs[mode].push(await restore(c, root, mode));
    for (const mode of ['eager', 'mapped'] as const) {
      const t = runs[mode];
      const p50 = (f: (x: Trial) => number): string => r0(median(t.map(f)));
      const verified = `${t.filter((x) => x.ok).length}/${t.length}`;
      process.stdout.write(
        `| ${size} | ${mode} | ${verified} | ${p50((x) => x.totalMs)} | ${p50((x) => x.ramMs)} | ${p50((x) => x.devMs)} | ${p50((x) => x.contToHbMs)} | ${mode === 'mapped' ? p50((x) => x.touchedMiB) : '-'} |\n`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
process.stdout.write(`load ${load()} at the end\n`);
process.exit(0);
