// The microvm target's options (scenario `targetOptions`): schema, defaults, validation with every problem reported.
import path from 'node:path';
import { z } from 'zod';
import { type ConfigIssue, ConfigIssuesError, schemaIssues } from '../../core/config-issues.js';
import type { EffectsConfig } from '../../effects/plan.js';
import { effectsConfig } from '../process/target.js';
import { probeClockAfterOption } from '../probe-options.js';
import { WORKLOADS } from '../guest/work-image.js';

export const microvmOptionsSchema = z
  .object({
    /** Guest RAM. */
    memoryMiB: z.number().int().min(64).max(16_384).default(256),
    /** Workspace on a virtio-blk ext4 disk (true) or on tmpfs in guest RAM (false: RAM-only sessions). */
    disk: z.boolean().default(true),
    diskMiB: z.number().int().min(16).max(65_536).default(128),
    /**
     * ext4 fast_commit on the workspace disk (mkfs -O fast_commit): the agent's per-step fdatasync logs one small block
     * instead of whole metadata blocks (about a tenth of the new disk blocks, bench/README.md). false: plain jbd2.
     */
    diskFastCommit: z.boolean().default(true),
    /** auto: KVM if a bounded boot probe succeeds on this machine, else TCG. */
    accel: z.enum(['auto', 'kvm', 'tcg']).default('auto'),
    /** Give up on a boot (first heartbeat) after this long. */
    bootTimeoutMs: z.number().int().positive().max(600_000).default(60_000),
    /** Give up on a RAM + device state save or load after this long. */
    migrateTimeoutMs: z.number().int().positive().max(600_000).default(60_000),
    /** stream: one compact migration stream; memfd: page-aligned RAM image (dedups between checkpoints) + device state. */
    ramCapture: z.enum(['stream', 'memfd']).default('stream'),
    /**
     * Stream mode: `file` writes the stream to a scratch file while paused and stores it after `cont` (shortest pause);
     * `inline` stores it while QEMU writes it, hashing each page as it arrives (no file, no second read: less total
     * work, but new pages are compressed inside the pause). Measured in bench/microvm-phases (README).
     */
    ramIngest: z.enum(['file', 'inline']).default('file'),
    /**
     * Stream mode: `live` saves RAM while the guest runs (QEMU's pre-copy: dirty pages resent) and QEMU pauses it only
     * for the last dirty pages, the disk copy and `cont`; `paused` stops the guest for the whole save; `background`
     * (QEMU's background-snapshot, userfaultfd write protection) pauses it only to save the device state and protect
     * RAM, then saves each page as of that pause while the guest runs. memfd mode always saves paused. Default
     * `paused`. Do not use `live` under TCG: QEMU 7.2's pre-copy there wrote streams that miss the guest's last writes
     * (a restore one step behind the heartbeats already sent, or a hung/panicking guest: CHANGELOG, issue 16).
     */
    ramSave: z.enum(['live', 'paused', 'background']).default('paused'),
    /** Live save: if pre-copy has not converged after this long, pause the guest (the rest is then saved paused). */
    precopyMaxMs: z.number().int().positive().max(600_000).default(2000),
    /** Live save: the pause QEMU aims for when it decides to stop the guest (QMP `downtime-limit`). */
    precopyDowntimeMs: z.number().int().positive().max(60_000).default(20),
    qemuBinary: z.string().min(1).default('qemu-system-x86_64'),
    /**
     * How a fresh session (a boot) starts: `cold` boots the kernel; `template` restores a template snapshot (guest booted
     * once, agent waiting for a session: template.ts) and gives it a new identity. Template needs ramCapture: stream.
     */
    fresh: z.enum(['cold', 'template']).default('cold'),
    /**
     * Keep the newest committed checkpoint's RAM stream and disk copy as local files in the session folder
     * (hot-copy.ts); a restore reads them once each matches the store's SHA-256 of that part, else the store.
     * Needs ramIngest: file (inline ingest writes no file). Off by default, so cold figures stay comparable.
     */
    hotCopy: z.boolean().default(false),
    /**
     * Where the target stops the guest itself (paused save; background with a disk): first have the agent hold between
     * steps, so the checkpoint's step is exact (its hold reply follows every heartbeat it wrote). Off by default: a
     * checkpoint then lands at any instant, mid-step included, and its step is the last heartbeat received, a lower
     * bound (heartbeats still in the guest's serial buffer at the stop are sent by the restored guest; the checker's
     * `regressed` then has that much slack). The skew negative control always holds.
     */
    exactStep: z.boolean().default(false),
    /**
     * The guest's wall clock after a restore: `free` leaves it to the guest (it continues from the checkpoint's instant:
     * behind the host's by the downtime); `resync` sets it to the host's time as the restored guest runs (a third
     * serial port, clock-resync.ts). Cold boots only (a template's guest booted without the port).
     */
    wallClock: z.enum(['free', 'resync']).default('free'),
    /**
     * The guest's kernel RNG after a restore: `fresh` writes a new seed from the host's RNG to the restored guest (ttyS2,
     * the resync's port), which mixes it in and reseeds its CRNG, so sessions restored from one checkpoint diverge;
     * `as-snapshot` leaves the RNG state the RAM snapshot holds (every such session reads the same bytes). Default:
     * `fresh` on cold boots, `as-snapshot` for templates (their guest boots without the port; its agent gets entropy).
     */
    entropy: z.enum(['fresh', 'as-snapshot']).optional(),
    /**
     * What runs in the guest beside the agent's checked chains (vm-images/README.md): `steps` nothing; `coding` a coding
     * agent's work (unpack a source tree, edit, build with tcc, run its tests, keep a server process), its own failures
     * reported in each full heartbeat and judged by the checker. Its image is the base one plus a second cpio archive.
     */
    workload: z.enum(WORKLOADS).default('steps'),
    /**
     * The dirty-rate knob: the agent writes this many KiB of pseudo-random bytes to RAM every step (a 32 MiB ring, not
     * checked state), so a guest dirties a set amount of memory per step (bench/growth's dirty axis). 0: off.
     */
    dirtyKiBPerStep: z.number().int().min(0).max(65_536).default(0),
  })
  .strict()
  .refine((o) => !o.hotCopy || o.ramIngest === 'file', {
    error: 'hotCopy needs ramIngest: file (inline ingest keeps no local copy of the stream)',
    path: ['hotCopy'],
  })
  .refine((o) => o.fresh === 'cold' || o.wallClock === 'free', {
    error: 'wallClock: resync needs fresh: cold (a template guest boots without the resync port)',
    path: ['wallClock'],
  })
  .refine((o) => o.fresh === 'cold' || o.entropy !== 'fresh', {
    error: 'entropy: fresh needs fresh: cold (a template guest boots without the seed port)',
    path: ['entropy'],
  })
  .refine((o) => o.fresh === 'cold' || o.workload === 'steps', {
    error: 'workload: coding needs fresh: cold (a template guest boots the base image)',
    path: ['workload'],
  })
  .refine((o) => o.fresh === 'cold' || o.dirtyKiBPerStep === 0, {
    error: 'dirtyKiBPerStep needs fresh: cold (a template guest boots with the template kernel command line)',
    path: ['dirtyKiBPerStep'],
  })
  .refine((o) => o.fresh === 'cold' || o.ramCapture === 'stream', {
    error: 'fresh: template needs ramCapture: stream',
    path: ['fresh'],
  });

export type MicrovmOptions = z.infer<typeof microvmOptionsSchema>;

/** Whether a restored guest gets a fresh seed (targetOptions.entropy, default by `fresh`). */
export function freshEntropy(opts: MicrovmOptions): boolean {
  return (opts.entropy ?? (opts.fresh === 'cold' ? 'fresh' : 'as-snapshot')) === 'fresh';
}
/** The effect plan of a microvm session (run/effects-run.ts adds it to targetOptions). */
export type MicrovmEffects = EffectsConfig;

/** Validate `targetOptions`; a ConfigIssuesError lists every invalid field by its dot-path. */
export function parseMicrovmOptions(raw: Record<string, unknown>): MicrovmOptions {
  return parseMicrovmTargetOptions(raw).opts;
}

/**
 * The options and, apart from them (they are not the machine's: no record or template depends on them), the effect
 * plan the runner adds when the scenario enables effects (run/effects-run.ts). A template-mode guest cannot emit: its
 * kernel command line, which carries the plan to the agent, is the template's.
 */
export function parseMicrovmTargetOptions(raw: Record<string, unknown>): {
  opts: MicrovmOptions;
  effects?: EffectsConfig;
  /** The guest-state probe on (set by `--matrix` or a probing scenario: the host's binary, the guest runs its own). */
  probe?: true;
  /** Later wall-clock readings, seconds after a resume (`--matrix --clock-after`; probeClockAfter). */
  clockAfter?: number[];
} {
  const { effects: rawEffects, probe, probeClockAfter, ...rest } = raw;
  const result = microvmOptionsSchema.safeParse(rest);
  const issues: ConfigIssue[] = result.success
    ? []
    : schemaIssues(result.error.issues, ['targetOptions'], 'unknown option for target "microvm"');
  const effects = rawEffects === undefined ? undefined : effectsConfig(rawEffects, issues);
  if (effects !== undefined && !Number.isSafeInteger(effects.seed))
    issues.push({ path: ['seed'], message: 'effects on the microvm target need an integer seed' });
  if (effects !== undefined && result.success && result.data.fresh === 'template')
    issues.push({
      path: ['targetOptions', 'fresh'],
      message: 'effects need fresh: cold (a template guest boots before its session knows the effect plan)',
    });
  if (probe !== undefined && (typeof probe !== 'string' || !path.isAbsolute(probe)))
    issues.push({ path: ['targetOptions', 'probe'], message: 'set by `soak target check --matrix`: an absolute path' });
  if (probe !== undefined && result.success && result.data.fresh === 'template')
    issues.push({
      path: ['targetOptions', 'fresh'],
      message: 'the probe needs fresh: cold (a template guest boots before its session asks for the probe)',
    });
  const clockAfter = probeClockAfterOption(probeClockAfter, probe, issues);
  if (!result.success || issues.length > 0) throw new ConfigIssuesError('microvm target options are invalid', issues);
  return {
    opts: result.data,
    ...(clockAfter !== undefined ? { clockAfter } : {}),
    ...(effects !== undefined ? { effects } : {}),
    ...(probe !== undefined ? { probe: true } : {}),
  };
}
