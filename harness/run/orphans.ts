// Find and kill session hosts left running by a runner that died: by the PIDs its journal recorded (each host leads
// its own process group: agent, tool, QEMU), confirmed against /proc so a recycled PID is never touched; and the
// processes an exec adapter declared outside the host group (its kill list: runsc's sandbox and gofer), by start time.
import { readdirSync, readFileSync } from 'node:fs';
import type { DeclaredProcess, JournalEvent } from '../journal/events.js';
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

/** A kill list as the host declared it, with each process's start time read now (while it surely is that process). */
export function declaredProcesses(k: { pids: number[]; groups: number[] }): DeclaredProcess[] {
  const out: DeclaredProcess[] = [];
  const add = (pid: number, group: boolean): void => {
    const stat = readProcStat(pid);
    if (stat !== null) out.push({ pid, group, startTime: stat.startTime });
  };
  for (const p of k.groups) add(p, true);
  for (const p of k.pids) if (!k.groups.includes(p)) add(p, false);
  return out;
}

/** Every process any host of the run ever declared for its kill list (each list replaces none: all are suspects). */
export function declaredKillLists(events: Iterable<JournalEvent>): DeclaredProcess[] {
  const seen = new Map<string, DeclaredProcess>();
  for (const e of events) if (e.type === 'kill-list') for (const p of e.procs) seen.set(`${p.pid}:${p.startTime}`, p);
  return [...seen.values()];
}

/**
 * SIGKILL each declared process that still runs with the start time it was declared with (a zombie is already dead);
 * a group entry kills its whole group. Returns the PIDs killed.
 */
export function killDeclared(procs: readonly DeclaredProcess[]): number[] {
  const killed: number[] = [];
  for (const p of procs) {
    const stat = readProcStat(p.pid);
    if (stat === null || stat.startTime !== p.startTime || stat.state === 'Z' || stat.state === 'X') continue;
    // A group entry: its whole group, and the process itself (it need not lead a group: then only it is hit).
    const hit = [...(p.group ? [-p.pid] : []), p.pid].filter((id) => {
      try {
        process.kill(id, 'SIGKILL');
        return true;
      } catch {
        return false; // gone already, or no such group
      }
    });
    if (hit.length > 0) killed.push(p.pid);
  }
  return killed;
}
