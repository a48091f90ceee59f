// The host's control groups as the bridge finds them, and one run's group in them: cgroup v2 (the unified
// hierarchy, where the bridge's own group is delegated to it — a systemd `Delegate=yes` unit, a container
// with its own cgroup namespace) or cgroup v1 (separate `memory` and `pids` hierarchies, as this project's
// CI machines have). A run's group is a child of the bridge's own, made before the agent starts and
// removed after it; its counters say whether the kernel stopped the agent at a cap.
import { readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

export type CgroupFlavour = "v2" | "v1";

/** Where the run groups of this bridge go: a parent per controller (v1) or one (v2). */
export interface CgroupRoots {
  flavour: CgroupFlavour;
  memory: string;
  pids: string;
}

/** The bridge's own groups, from /proc/self/cgroup and the mounts: `null` where none is usable. */
export function findRoots(selfCgroup: string, mountsText: string): CgroupRoots | null {
  const mounts = mountsText
    .split("\n")
    .map((l) => l.split(" "))
    .filter((f) => f.length >= 4);
  const v2mount = mounts.find((f) => f[2] === "cgroup2")?.[1];
  const v1 = (ctrl: string) => mounts.find((f) => f[2] === "cgroup" && (f[3] ?? "").split(",").includes(ctrl))?.[1];
  const memV1 = v1("memory");
  const pidsV1 = v1("pids");
  if (memV1 && pidsV1) {
    const m = selfCgroup
      .split("\n")
      .find((l) => /^\d+:memory:/.test(l))
      ?.split(":")[2];
    const p = selfCgroup
      .split("\n")
      .find((l) => /^\d+:pids:/.test(l))
      ?.split(":")[2];
    if (m !== undefined && p !== undefined) return { flavour: "v1", memory: join(memV1, m), pids: join(pidsV1, p) };
  }
  const unified = selfCgroup
    .split("\n")
    .find((l) => l.startsWith("0::"))
    ?.slice(3);
  if (v2mount && unified !== undefined) {
    const own = join(v2mount, unified);
    return { flavour: "v2", memory: own, pids: own };
  }
  return null;
}

/** The bridge's own groups on this host (read once at start). */
export function hostRoots(): CgroupRoots | null {
  try {
    return findRoots(readFileSync("/proc/self/cgroup", "utf8"), readFileSync("/proc/self/mounts", "utf8"));
  } catch {
    return null;
  }
}

export interface Caps {
  memoryBytes: number | null;
  pids: number | null;
}

/** One run's group: made, joined by the agent's first process (the jail's wrapper), read, removed. */
export class RunCgroup {
  private constructor(
    readonly roots: CgroupRoots,
    readonly dirs: { memory: string; pids: string },
  ) {}

  /** The group a process is in now (a systemd scope made for the run): read, never made or removed here. */
  static ofProcess(pid: number, mount: string): RunCgroup | null {
    try {
      const path = readFileSync(`/proc/${pid}/cgroup`, "utf8")
        .split("\n")
        .find((l) => l.startsWith("0::"))
        ?.slice(3);
      if (path === undefined) return null;
      const dir = join(mount, path);
      return new RunCgroup({ flavour: "v2", memory: mount, pids: mount }, { memory: dir, pids: dir });
    } catch {
      return null;
    }
  }

  /** Makes the run's group below the bridge's own, its caps set; throws when the kernel refuses. */
  static async create(roots: CgroupRoots, name: string, caps: Caps): Promise<RunCgroup> {
    const dirs = { memory: join(roots.memory, name), pids: join(roots.pids, name) };
    const g = new RunCgroup(roots, dirs);
    for (const d of new Set([dirs.memory, dirs.pids])) await mkdir(d);
    try {
      if (roots.flavour === "v2") {
        if (caps.memoryBytes !== null) {
          await writeFile(join(dirs.memory, "memory.max"), String(caps.memoryBytes));
          // No swap beyond the cap: the cap is what the agent may use, in RAM or on disk.
          await writeFile(join(dirs.memory, "memory.swap.max"), "0").catch(() => undefined);
        }
        if (caps.pids !== null) await writeFile(join(dirs.pids, "pids.max"), String(caps.pids));
      } else {
        if (caps.memoryBytes !== null) {
          await writeFile(join(dirs.memory, "memory.limit_in_bytes"), String(caps.memoryBytes));
          // memory + swap together (where swap accounting is on): the same cap, so no swap beyond it.
          await writeFile(join(dirs.memory, "memory.memsw.limit_in_bytes"), String(caps.memoryBytes)).catch(() => undefined);
        }
        if (caps.pids !== null) await writeFile(join(dirs.pids, "pids.max"), String(caps.pids));
      }
    } catch (err) {
      await g.remove();
      throw err;
    }
    return g;
  }

  /** The files a process writes its own pid into to join the group (one per hierarchy). */
  get procsFiles(): string[] {
    return [...new Set([this.dirs.memory, this.dirs.pids])].map((d) => join(d, "cgroup.procs"));
  }

  private async counter(file: string, key: string): Promise<number> {
    const text = await readFile(file, "utf8").catch(() => "");
    const m = new RegExp(`^${key}\\s+(\\d+)`, "m").exec(text);
    return m ? Number(m[1]) : 0;
  }

  /** The cap the kernel enforced on the run so far (its OOM killer ran; a fork was refused), or null. */
  async hit(): Promise<"memory" | "pids" | null> {
    const oom = await this.counter(join(this.dirs.memory, this.roots.flavour === "v2" ? "memory.events" : "memory.oom_control"), "oom_kill");
    if (oom > 0) return "memory";
    if ((await this.counter(join(this.dirs.pids, "pids.events"), "max")) > 0) return "pids";
    return null;
  }

  /** Pids in the group now (bounded by its pids cap: this read never grows with a fork bomb beyond it). */
  async members(): Promise<number[]> {
    const text = await readFile(join(this.dirs.pids, "cgroup.procs"), "utf8").catch(() => "");
    return text
      .split("\n")
      .filter((l) => /^\d+$/.test(l))
      .map(Number);
  }

  /** Removes the group (its processes gone: the run ended, its jail killed); a failure is left to the next start. */
  async remove(): Promise<void> {
    for (const d of new Set([this.dirs.memory, this.dirs.pids])) await rmdir(d).catch(() => undefined);
  }
}

/** Why the bridge cannot make run groups here (one test group made, capped and removed), or null. */
export async function cannotMakeGroups(roots: CgroupRoots): Promise<string | null> {
  try {
    const g = await RunCgroup.create(roots, `hkb-probe-${process.pid}`, { memoryBytes: 64 * 1024 * 1024, pids: 64 });
    await g.remove();
    return null;
  } catch (err) {
    return `cannot make a cgroup under ${roots.memory}${roots.pids !== roots.memory ? ` and ${roots.pids}` : ""} (${(err as Error).message})`;
  }
}
