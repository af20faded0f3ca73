// Find and kill session hosts left running by a runner that died: by the PIDs its journal recorded (each host leads
// its own process group: agent, tool, QEMU), confirmed against /proc so a recycled PID is never touched; and the
// processes an exec adapter declared outside the host group (its kill list: runsc's sandbox and gofer), by start time,
// never one that started before its host nor one on the never-list.
import { readdirSync, readFileSync } from 'node:fs';
import type { DeclaredProcess, JournalEvent } from '../journal/events.js';
import { neverKilled, signalEntries } from '../core/kill-guard.js';
import { readProcStat, startedBefore } from '../core/proc.js';

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

/** A journaled kill-list entry and the start time of the host that declared it (null: not journaled, older runs). */
export interface JournaledKill extends DeclaredProcess {
  host: number;
  hostStartTime: string | null;
}

/**
 * Every process any host of the run ever declared for its kill list (each list replaces none: all are suspects), with
 * its host's start time; entries of a host the journal never started are left out (a journal is input too).
 */
export function declaredKillLists(events: Iterable<JournalEvent>): JournaledKill[] {
  const hosts = new Set<number>();
  const seen = new Map<string, JournaledKill>();
  for (const e of events) {
    if (e.type === 'host-start') hosts.add(e.pid);
    if (e.type !== 'kill-list' || !hosts.has(e.host)) continue;
    for (const p of e.procs)
      seen.set(`${p.pid}:${p.startTime}`, { ...p, host: e.host, hostStartTime: e.hostStartTime ?? null });
  }
  return [...seen.values()];
}

/** Why a resumed run must not kill journaled entry `p` before any check of the live process; null: check it. */
function journalRefusal(p: JournaledKill): string | null {
  if (p.hostStartTime === null || !/^\d+$/.test(p.hostStartTime) || !/^\d+$/.test(p.startTime))
    return `pid ${p.pid}: its kill list does not carry the start time of host ${p.host} (a journal from before kill lists were proven)`;
  if (startedBefore(p.startTime, p.hostStartTime))
    return `pid ${p.pid} started before host ${p.host}, which declared it: not the host's`;
  return null;
}

/**
 * SIGKILL each declared process that still runs with the start time it was declared with (a zombie is already dead),
 * started after the host that declared it, and is on no never-list (core/kill-guard.ts); a group entry kills its whole
 * group while its leader still leads it. Returns the PIDs killed and why the others were spared.
 */
export function killDeclared(procs: readonly JournaledKill[]): { killed: number[]; spared: string[] } {
  const spared: string[] = [];
  const checked = procs.filter((p) => {
    const refusal = journalRefusal(p);
    if (refusal !== null) spared.push(refusal);
    return refusal === null;
  });
  const r = signalEntries(checked, neverKilled(process.pid), 'SIGKILL');
  return { killed: r.hit, spared: [...spared, ...r.spared] };
}
