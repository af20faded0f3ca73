// The memory-pressure fault (issue 36): the sessions' hosts (each host's process group and kill list) run in one
// memory cgroup made for the run (memory-cgroup.ts). At a cycle the run's seed plans as one, every session meets
// (crash-barrier.ts: each host seen working past its checkpoint), then one squeeze lowers the cgroup's limit to its
// usage, again as usage falls, until the kernel's OOM killer kills a process in it; the limit is lifted at once. The
// kernel picks the victim, not us: the PID the kernel logs it killed (without a readable kernel log: the squeezed
// processes first seen dead) names the session. A victim's session went down at the kill: the rest of its group is
// SIGKILLed and it resumes as after any kill, judged by the same checker (its cycle journals the `memory-pressure`
// fault). A session the kernel did not pick was not interrupted by the squeeze: its cycle goes on as a plain SIGKILL
// cycle (its own planned kill, no fault event), so its trial counts as the kill it is, never as a memory-pressure
// trial it was not, nor as a failure. A squeeze with no OOM kill within a bounded wait (measured from the last change
// seen in usage or limit, never a sleep) makes every session's cycle the harness's (cause memory-pressure), never the
// runtime's. Each squeeze is journaled once, with its limit, usage, victims and time to the kill (fault-events.ts).
import { nowMs, sleep } from '../core/clock.js';
import { ConfigError } from '../core/errors.js';
import { groupMembers, isDead, readProcStat } from '../core/proc.js';
import { roundMs } from '../core/round.js';
import type { IndeterminateCause } from '../journal/events.js';
import type { JournalWriter } from '../journal/writer.js';
import type { Scenario } from '../scenario/scenario.js';
import { hostTimeouts } from '../scenario/timeouts.js';
import type { HostHandle } from '../session/host-handle.js';
import { goneCause } from '../session/infra-cause.js';
import { gaveUp, journalFault, type CrashMember, type CrashTurn, type Delivery, type Fault } from './fault.js';
import { CrashBarrier } from './crash-barrier.js';
import { KillPath } from './kill-path.js';
import { MemoryCgroup, memoryCgroupIssue, OomWitness, sweepStaleCgroups } from './memory-cgroup.js';
import { down, journalKill, strike } from './strike.js';

/** How often the squeeze reads the cgroup's counters while it waits for the OOM killer. */
const TICK_MS = 20;
const PAGE = 4096;

export const memoryPressure: Fault = {
  kind: 'memory-pressure',
  needsLazyfs: false,
  async inject(ctx, host) {
    if (!ctx.crash) throw new Error(`cycle ${ctx.cycle}: a memory-pressure fault needs the run's squeeze`);
    const seen: { gone: IndeterminateCause | null } = { gone: null };
    const turn = await ctx.crash.meet(ctx.cycle, host, () => void (seen.gone = goneCause(host, ctx.runDir)));
    if (turn.kind === 'gave-up') return gaveUp(host, turn.cause);
    if (seen.gone) return gaveUp(host, seen.gone); // it exited before the squeeze: the machine's, as before any kill
    if (turn.kind === 'spared') return strike(ctx, host); // not picked: its own planned kill, a plain SIGKILL cycle
    return victim(ctx, host, turn.tKill);
  },
};

/** The kernel killed a process of this session at `tKill`: the rest of its group goes too, and it resumes. */
function victim(ctx: Parameters<Fault['inject']>[0], host: HostHandle, tKill: number): Promise<Delivery> {
  journalFault(ctx, host); // the checkpoint acknowledged before the kill (nothing commits once a process is gone)
  const { maxStep: atStep, inFlightSeq, lastCommitted } = host;
  const observedPhase = inFlightSeq !== null ? 'checkpoint' : 'work';
  const nonce = host.nonce ?? '';
  host.kill(); // what the OOM killer left of the session (its host, agent or tool)
  const k = { phase: ctx.plan.kill.phase, observedPhase, atStep, nonce, lastCommitted, inFlightSeq } as const;
  journalKill(ctx.journal, ctx.cycle, k, tKill);
  const path = new KillPath(tKill);
  path.mark('journaled');
  ctx.readLatest();
  path.mark('preRead');
  return down(ctx, host, { tKill, nonce, observedPhase, stuck: null, path });
}

/** Whether process `pid` is gone or a zombie. */
function dead(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat === null || isDead(stat);
}

/** The run's memory squeezes: its cgroup, the hosts joining it, and the squeeze the sessions' meeting runs. */
export class MemoryPressure {
  private constructor(
    private readonly cg: MemoryCgroup,
    private readonly journal: JournalWriter,
    /** How long a squeeze waits with no change seen in the cgroup's usage or limit. */
    private readonly boundMs: number,
  ) {}

  /** For a scenario that plans memory-pressure: sweep stale run cgroups, make this run's; null when it plans none. */
  static async start(scenario: Scenario, journal: JournalWriter, runId: string): Promise<MemoryPressure | null> {
    if (!scenario.faults.some((f) => f.kind === 'memory-pressure')) return null;
    refuseMemoryPressure(scenario); // refused before the run folder too (a --resume: here, before any cycle)
    const hostMs = hostTimeouts(scenario).hostMs;
    await sweepStaleCgroups(hostMs);
    return new MemoryPressure(MemoryCgroup.create(runId), journal, hostMs);
  }

  /** Squeeze at the meetings of memory-pressure cycles. */
  attach(barrier: CrashBarrier): void {
    barrier.actOn('memory-pressure', (cycle, hosts) => this.squeeze(cycle, hosts));
  }

  /** A session host was spawned: it joins the cgroup before it starts its agent (a warm standby joins when handed). */
  spawned(host: HostHandle, mode: string): void {
    if (mode !== 'standby' && mode !== 'pool') this.cg.join(host.pid);
  }

  /** Remove the cgroup (its hosts are reaped by now); whether it is gone. */
  close(): Promise<boolean> {
    return this.cg.remove(this.boundMs);
  }

  /** Squeeze every seated host until the OOM killer fires; each session's turn. */
  private async squeeze(cycle: number, hosts: ReadonlyMap<number, HostHandle>): Promise<Map<number, CrashTurn>> {
    const owner = new Map<number, number | null>(); // pid -> session (null: in the cgroup, of no squeezed session)
    for (const pid of this.cg.procs()) owner.set(pid, null); // a host of no seat: one that is leaving
    for (const [s, h] of hosts)
      for (const pid of [...groupMembers(h.pid), ...h.killList.map((k) => k.pid)])
        if (this.cg.join(pid)) owner.set(pid, s);
    const witness = OomWitness.now();
    const before = this.cg.oom().oomKill;
    const usageBytes = this.cg.usage();
    const t0 = nowMs();
    const { limit, oomKills, tKill } = await this.lower(usageBytes, before);
    const victims = oomKills > 0 ? await this.victims(owner, witness) : [];
    this.journal.append({
      type: 'memory-pressure',
      cycle,
      sessions: hosts.size,
      usageBytes,
      limitBytes: limit,
      oomKills,
      victims,
      killMs: oomKills > 0 ? roundMs(tKill - t0) : null,
    });
    if (oomKills === 0) {
      const message = `cycle ${cycle}: no OOM kill in the run's memory cgroup within ${this.boundMs} ms of its last change in usage or limit, ${4 * this.boundMs} ms in all (limit ${limit} bytes, usage ${usageBytes} at the squeeze)`;
      const cause: IndeterminateCause = { code: 'memory-pressure', message };
      return new Map([...hosts.keys()].map((s) => [s, { kind: 'gave-up', cause }]));
    }
    const hit = new Set(victims.map((v) => v.session));
    return new Map([...hosts.keys()].map((s) => [s, hit.has(s) ? { kind: 'crashed', tKill } : { kind: 'spared' }]));
  }

  /**
   * Lower the limit to the usage (again as it falls) until the OOM killer fires or the bound runs out (measured from the
   * last change seen in usage or limit; at most 4 bounds in all); the limit is lifted however it ends.
   */
  private async lower(usageBytes: number, before: number): Promise<{ limit: number; oomKills: number; tKill: number }> {
    const t0 = nowMs();
    try {
      let limit = Math.ceil(usageBytes / PAGE) * PAGE;
      while (!this.cg.limit(limit)) limit = Math.ceil(this.cg.usage() / PAGE) * PAGE + PAGE; // usage rose meanwhile
      let seen = { usage: usageBytes, limit, at: t0 };
      for (;;) {
        await sleep(TICK_MS); // a poll of the kernel's counters; the bound below is measured from what they show
        const oomKills = this.cg.oom().oomKill - before;
        const now = nowMs();
        if (oomKills > 0) return { limit, oomKills, tKill: now };
        const usage = this.cg.usage();
        const lower = Math.floor(usage / PAGE) * PAGE;
        if (lower < limit && this.cg.limit(lower)) limit = lower;
        if (usage !== seen.usage || limit !== seen.limit) seen = { usage, limit, at: now };
        else if (now - seen.at > this.boundMs) return { limit, oomKills, tKill: now };
        if (now - t0 > 4 * this.boundMs) return { limit, oomKills, tKill: now };
      }
    } finally {
      this.cg.lift(); // no limit outlives its squeeze
    }
  }

  /**
   * The OOM killer's victims: the PIDs the kernel logged it killed (where the kernel log is readable), else the
   * squeezed processes first seen dead; each with its session (bounded wait for the first).
   */
  private async victims(
    owner: ReadonlyMap<number, number | null>,
    witness: OomWitness | null,
  ): Promise<{ session: number | null; pid: number }[]> {
    const deadline = nowMs() + this.boundMs;
    for (;;) {
      const gone = witness ? witness.killed().filter((pid) => owner.has(pid)) : [...owner.keys()].filter(dead);
      if (gone.length > 0 || nowMs() > deadline) return gone.map((pid) => ({ session: owner.get(pid) ?? null, pid }));
      await sleep(TICK_MS / 2); // the kernel logs its kill, and the killed process exits, as it reaps its memory
    }
  }
}

/** Refuse (exit 3, one line) a scenario that plans memory-pressure where no memory cgroup can be used. */
export function refuseMemoryPressure(scenario: Pick<Scenario, 'faults'>): void {
  const issue = scenario.faults.some((f) => f.kind === 'memory-pressure') ? memoryCgroupIssue() : null;
  if (issue !== null) throw new ConfigError(issue);
}

/** A run of one session that plans memory-pressure: its squeeze and the one-seat meeting it is run at; else null. */
export async function soloSqueeze(
  scenario: Scenario,
  journal: JournalWriter,
  runId: string,
): Promise<{ crash: CrashMember; squeeze: MemoryPressure } | null> {
  const squeeze = await MemoryPressure.start(scenario, journal, runId);
  if (!squeeze) return null;
  const barrier = new CrashBarrier(scenario, journal);
  squeeze.attach(barrier);
  return { crash: barrier.member(0), squeeze };
}
