// Find and kill session hosts left running by a runner that died: by the PIDs its journal recorded (each host leads
// its own process group: agent, tool, QEMU), confirmed against /proc so a recycled PID is never touched.
import { readdirSync, readFileSync } from 'node:fs';
import type { JournalEvent } from '../journal/events.js';
import { readProcStat } from '../core/proc.js';

/** Processes of this harness a host group may hold, besides those that name the run folder in their argv. */
const HARNESS_SCRIPTS = ['session/host-main.js', 'targets/process/agent.js', 'targets/process/tool.js', 'qemu-system'];

interface Proc {
  pid: number;
  pgid: number;
  cmdline: string;
}

function listProcs(): Proc[] {
  const out: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(name);
    if (stat === null) continue; // exited while we looked
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      out.push({ pid: Number(name), pgid: stat.pgrp, cmdline });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** The process groups of the hosts a run started: each host leads its own group, so its PID is the group id. */
export function hostGroups(events: Iterable<JournalEvent>): Set<number> {
  const groups = new Set<number>();
  for (const e of events) if (e.type === 'host-start') groups.add((e as { pid: number }).pid);
  return groups;
}

/** Live processes in the groups of the hosts this run started (recorded host PIDs), that belong to this run. */
export function orphanProcesses(groups: ReadonlySet<number>, runDir: string): Proc[] {
  const procs = listProcs().filter((p) => groups.has(p.pgid));
  // A group counts as ours when one of its members names the run folder (the host does, in its config argv).
  const ours = new Set(procs.filter((p) => p.cmdline.includes(runDir)).map((p) => p.pgid));
  return procs.filter(
    (p) => ours.has(p.pgid) && (p.cmdline.includes(runDir) || HARNESS_SCRIPTS.some((s) => p.cmdline.includes(s))),
  );
}

/** SIGKILL every process group of this run that is still alive; returns the group ids killed. */
export function killOrphans(hostGroupIds: ReadonlySet<number>, runDir: string): number[] {
  const groups = [...new Set(orphanProcesses(hostGroupIds, runDir).map((p) => p.pgid))];
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  return groups;
}
