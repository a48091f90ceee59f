// The one SIGTERM → grace → SIGKILL ladder, for a whole process group: the process runner (timeouts,
// aborts, leftovers after an exit), adopted agents and restart recovery all stop processes with it.
import { readFileSync, readdirSync, readlinkSync, statSync } from "node:fs";
import { sleep } from "../time/clock.js";

/** Signals the process group `pgid` (falls back to the single process). False when nothing was there. */
export function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    try {
      process.kill(pgid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

/** Signals a process group that is still there (never a lone pid: a group gone, its id may be reused). */
function killOnlyGroup(pgid: number, signal: NodeJS.Signals): void {
  if (groupMembers(pgid).length === 0) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // gone meanwhile
  }
}

interface ProcStat {
  pid: number;
  ppid: number;
  pgid: number;
  /** Its program's name (the kernel's comm: 15 bytes at most). */
  comm: string;
}

/** Every live (non-zombie) process, from /proc: pid, parent, process group. */
function processes(): ProcStat[] {
  const out: ProcStat[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the comm (which may hold spaces and parentheses): state ppid pgrp …
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (rest[0] === "Z" || rest[0] === "X") continue;
      out.push({ pid: Number(name), ppid: Number(rest[1]), pgid: Number(rest[2]), comm: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")) });
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

/** The variable a jail's command line names its marker with (`--setenv HKB_JAIL <marker>`, jail/bwrap.ts). */
export const JAIL_MARKER_VAR = "HKB_JAIL";

/** Live processes whose command line holds a jail's marker (`--setenv HKB_JAIL <marker>`). */
export function jailProcesses(marker: string): number[] {
  const needle = Buffer.from(`\0--setenv\0${JAIL_MARKER_VAR}\0${marker}\0`, "utf8");
  return processes()
    .filter((p) => {
      try {
        return Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${p.pid}/cmdline`)]).indexOf(needle) !== -1;
      } catch {
        return false; // ended while we looked
      }
    })
    .map((p) => p.pid);
}

/** The processes of the jails `marker` names and every process below them (a jail's own, from the host). */
export function jailTree(marker: string): number[] {
  return [...withDescendants(processes(), jailProcesses(marker))];
}

/** `roots` and every process below them, in `all`. */
function withDescendants(all: readonly ProcStat[], roots: readonly number[]): Set<number> {
  const tree = new Set(roots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all)
      if (!tree.has(p.pid) && tree.has(p.ppid)) {
        tree.add(p.pid);
        grew = true;
      }
  }
  return tree;
}

const ownPidNs = (() => {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return null;
  }
})();

/**
 * A real bubblewrap a bridge started: its program is a file named bwrap that only root can change, in this
 * pid namespace (never inside a jail), running as root or this process's user — or as an agent's uid (a root
 * bridge switches to it before bubblewrap) started by a process of root or this user (a bridge, its
 * wrapper), never by another. Anyone can name a process `bwrap` and put a marker in its command line, and an
 * agent without a jail of its own can run the real one: such a "jail" would keep a give-back away.
 */
function realBwrap(p: ProcStat): boolean {
  const me = process.getuid?.() ?? -1;
  const trusted = (uid: number) => uid === 0 || uid === me;
  try {
    const image = statSync(`/proc/${p.pid}/exe`);
    return (
      readlinkSync(`/proc/${p.pid}/exe`).endsWith("/bwrap") &&
      image.uid === 0 &&
      (image.mode & 0o022) === 0 &&
      (ownPidNs === null || readlinkSync(`/proc/${p.pid}/ns/pid`) === ownPidNs) &&
      (trusted(statSync(`/proc/${p.pid}`).uid) || (p.ppid > 1 && trusted(statSync(`/proc/${p.ppid}`).uid)))
    );
  } catch {
    return false; // ended, or not ours to look into: no jail of a bridge of this user or root
  }
}

const JAIL_NEEDLE = Buffer.from(`\0--setenv\0${JAIL_MARKER_VAR}\0`, "utf8");

/** A jail's first process: a real bubblewrap (realBwrap) whose command line names a marker (only bubblewrap's is read: a cmdline is slow to read on a busy host). */
function isJail(p: ProcStat): boolean {
  if (p.comm !== "bwrap" || !realBwrap(p)) return false;
  try {
    return Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${p.pid}/cmdline`)]).indexOf(JAIL_NEEDLE) !== -1;
  } catch {
    return false; // ended while we looked
  }
}

/** A process of `uid` (a jail without namespaces, agent.isolation: user, is its uid's processes). */
function isOf(p: ProcStat, uid: number): boolean {
  try {
    return statSync(`/proc/${p.pid}`).uid === uid;
  } catch {
    return false; // ended, or not ours to look at
  }
}

/**
 * Every jail's first process on this host (any bridge's of this user or root, any seat's: its command line
 * holds a marker, `--setenv HKB_JAIL <marker>`, and it is a real bubblewrap — realBwrap: the bridge started it
 * in the run's workspace, so its cwd is that workspace, which jail/live.ts compares by inode) and, with `uid`,
 * every process of that uid: one pass over /proc, not one for each (a workspace's claim asks both, and a busy
 * host has thousands of processes).
 */
export function jailsAndProcessesOf(uid: number | null): number[] {
  return processes()
    .filter((p) => isJail(p) || (uid !== null && isOf(p, uid)))
    .map((p) => p.pid);
}

/** SIGKILLs every process of a jail (by its marker); says how many. Killing a jail's namespace init ends its namespace. */
export function killJailMarked(marker: string): number {
  let killed = 0;
  for (const pid of jailProcesses(marker))
    try {
      process.kill(pid, "SIGKILL");
      killed += 1;
    } catch {
      // gone meanwhile
    }
  return killed;
}

/** Live (non-zombie) members of a process group, from /proc. */
export function groupMembers(pgid: number): number[] {
  return processes()
    .filter((p) => p.pgid === pgid)
    .map((p) => p.pid);
}

/**
 * The process groups below `pid` other than its own: a jailed agent (bubblewrap's `--new-session`
 * puts it in a session and group of its own, in its own pid namespace) is reached through them.
 */
export function groupsBelow(pid: number): number[] {
  const all = processes();
  const own = all.find((p) => p.pid === pid)?.pgid ?? pid;
  const below = withDescendants(all, [pid]);
  return [...new Set(all.filter((p) => below.has(p.pid) && p.pid !== pid && p.pgid !== own).map((p) => p.pgid))];
}

/** Signals every process group below `pid` (not its own); false when there was none. */
export function signalBelow(pid: number, signal: NodeJS.Signals): boolean {
  const groups = groupsBelow(pid);
  for (const g of groups) killGroup(g, signal);
  return groups.length > 0;
}

export interface LadderOptions {
  /** Time between the first signal and SIGKILL. */
  graceMs: number;
  /** The first signal (SIGTERM unless a polite stop, e.g. SIGINT, is wanted). */
  first?: NodeJS.Signals;
  /** True once nothing is left to stop (default: the group has no live member). */
  gone?: () => boolean;
  /** The first signal goes to the groups below the leader (a jail: its leader's death would kill them at once). */
  firstBelow?: boolean;
  pollMs?: number;
}

/**
 * Stops a process group: first signal, wait up to the grace, then SIGKILL. Says how it ended. The groups
 * below the leader (a jail's own session) are remembered while the leader lives and count as part of
 * it: a jail whose leader died first (its --die-with-parent not yet armed) is still stopped, never left
 * running under init.
 */
export async function terminateGroup(pgid: number, o: LadderOptions): Promise<"gone" | "killed" | "survived"> {
  const below = new Set<number>(groupsBelow(pgid));
  const leaderGone = o.gone ?? (() => groupMembers(pgid).length === 0);
  const gone = () => {
    if (!leaderGone()) {
      for (const g of groupsBelow(pgid)) below.add(g);
      return false;
    }
    return [...below].every((g) => groupMembers(g).length === 0);
  };
  if (gone()) return "gone";
  if (!(o.firstBelow && signalBelow(pgid, o.first ?? "SIGTERM"))) killGroup(pgid, o.first ?? "SIGTERM");
  const poll = o.pollMs ?? 50;
  for (let waited = 0; waited < o.graceMs; waited += poll) {
    await sleep(poll);
    if (gone()) return "gone";
  }
  for (const g of below) killOnlyGroup(g, "SIGKILL");
  killGroup(pgid, "SIGKILL");
  for (let waited = 0; waited < 2000; waited += poll) {
    if (gone()) return "killed";
    await sleep(poll);
  }
  return gone() ? "killed" : "survived";
}
