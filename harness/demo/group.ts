// The processes in the session host's process group (host, agent, tool; QEMU for the microvm target), read from
// /proc, so the page can name each PID a person may kill. Cached for a second: the page asks ten times as often.
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../core/proc.js';

/** One process of the group: its PID and command name. */
export interface GroupMember {
  pid: number;
  name: string;
}

const CACHE_MS = 1000;

/** A reader of group `pgid`'s members (empty where /proc is missing), refreshed at most once a second. */
export function groupReader(): (pgid: number) => GroupMember[] {
  let cached: { pgid: number; at: number; members: GroupMember[] } | null = null;
  return (pgid) => {
    const now = Date.now();
    if (cached && cached.pgid === pgid && now - cached.at < CACHE_MS) return cached.members;
    cached = { pgid, at: now, members: readGroup(pgid) };
    return cached.members;
  };
}

/** Every live (not zombie) process whose process group is `pgid`, by PID. */
export function readGroup(pgid: number): GroupMember[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: GroupMember[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const st = readProcStat(n);
    if (!st || st.pgrp !== pgid || st.state === 'Z') continue;
    let name = '?';
    try {
      name = readFileSync(`/proc/${n}/comm`, 'utf8').trim();
    } catch {
      // gone meanwhile
    }
    out.push({ pid: Number(n), name });
  }
  return out.sort((a, b) => a.pid - b.pid);
}
