// /proc readings for the benchmark: CPU (own, and own + reaped children) and RSS of a process tree.
import { readFileSync, readdirSync } from "node:fs";

const TICK = 100; // USER_HZ on Linux

function stat(pid: number): string[] | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** CPU ms of the process itself, and including the children it has reaped (CLI calls, agents). */
export function cpuMs(pid: number): { own: number; withChildren: number } {
  const f = stat(pid);
  if (!f) return { own: 0, withChildren: 0 };
  const n = (i: number) => Number(f[i - 3] ?? 0);
  const own = ((n(14) + n(15)) * 1000) / TICK;
  return { own, withChildren: own + ((n(16) + n(17)) * 1000) / TICK };
}

function children(): Map<number, number[]> {
  const m = new Map<number, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const f = stat(Number(d));
    if (!f) continue;
    const ppid = Number(f[1]);
    m.set(ppid, [...(m.get(ppid) ?? []), Number(d)]);
  }
  return m;
}

/** CPU ms of a process tree: every live descendant's own and reaped time, and the root's (a call server's forks included). */
export function treeCpuMs(pid: number): number {
  const kids = children();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop() as number;
    total += cpuMs(p).withChildren;
    stack.push(...(kids.get(p) ?? []));
  }
  return total;
}

/** RSS (KiB) of the live descendants whose command line matches, summed (the call server, the watch child). */
export function descendantRssKiB(pid: number, match: RegExp): number {
  const kids = children();
  let total = 0;
  const stack = [...(kids.get(pid) ?? [])];
  while (stack.length) {
    const p = stack.pop() as number;
    let cmd = "";
    try {
      cmd = readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " ");
    } catch {
      continue;
    }
    if (match.test(cmd)) total += rssKiB(p);
    else stack.push(...(kids.get(p) ?? []));
  }
  return total;
}

/** RSS (KiB) of one process (0 once it is gone). */
export function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** RSS (KiB) of a process and all its live descendants. */
export function treeRssKiB(pid: number): number {
  const kids = children();
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop() as number;
    total += rssKiB(p);
    stack.push(...(kids.get(p) ?? []));
  }
  return total;
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? Number.NaN;
}

export function median(xs: number[]): number {
  return percentile(xs, 50);
}

/** PSS (KiB) of one process: its own pages, and its share of those it shares (the node binary, libraries) — what it costs the host. */
export function pssKiB(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** The processes of these trees, each once. */
export function treePids(roots: number[]): Set<number> {
  const kids = new Map<number, number[]>();
  for (const d of readdirSync("/proc").filter((x) => /^\d+$/.test(x)))
    try {
      const s = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]);
      kids.set(ppid, [...(kids.get(ppid) ?? []), Number(d)]);
    } catch {
      // gone
    }
  const out = new Set<number>();
  const stack = [...roots];
  while (stack.length) {
    const p = stack.pop() as number;
    if (out.has(p)) continue;
    out.add(p);
    stack.push(...(kids.get(p) ?? []));
  }
  return out;
}

/** CPU ms the whole machine spent busy (every core: user, nice, system, irq, softirq, steal — not idle or iowait). */
export function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user + nice + system + irq + softirq + steal) * 1000) / TICK;
}
