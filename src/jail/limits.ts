// Per-run caps (agent.limits): memory (swap included), processes and the jail's /tmp. A memory hog, a fork
// bomb or a /tmp filler is the run's problem, never the host's or another run's: `systemd` puts every
// process of the run in a transient scope (systemd-run --scope, MemoryMax = MemorySwapMax, TasksMax) where
// a service manager runs the bridge; `cgroup` gives it a group of its own below the bridge's (cgroup v2
// where it is delegated, v1's memory and pids controllers where that is what the host has); /tmp is a
// tmpfs of the cap's size (bubblewrap's --size). Where neither can be had (no systemd, no cgroup this user
// may make: most containers, a user without delegation) `rlimit` is the weaker fallback — per-process limits
// set by prlimit in the jail's first process inside its namespaces: the jail's processes (RLIMIT_NPROC,
// counted in the jail's own user namespace), each process's memory (RLIMIT_DATA: its heap and private
// memory — not shared memory (a MAP_SHARED anonymous mapping, a memfd) — the address space, RLIMIT_AS, would stop Node, which reserves far more than it uses, from
// starting under a GiB) and the largest file it may write (RLIMIT_FSIZE, the /tmp cap's size). `auto`
// picks the first that works here and says which; caps the operator set that `auto` cannot honour at all
// stop the seat; `none` caps nothing (said as loudly as an unjailed agent). The run's first process joins
// its group itself before it execs the jail (a wrapper: nothing it forks escapes), then drops to the agent's uid.
import { diesWithParent } from "../process/parent-death.js";
import { existsSync } from "node:fs";
import { PermanentError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { type CgroupRoots, type Caps, RunCgroup, cannotMakeGroups, hostRoots } from "./cgroups.js";

export interface LimitsConfig {
  mode: "auto" | "systemd" | "cgroup" | "rlimit" | "none";
  memoryMiB: number;
  pids: number;
  tmpMiB: number;
}

export type LimitsMode = "systemd" | "cgroup" | "rlimit" | "none";

export interface LimitsPolicy {
  mode: LimitsMode;
  /** The caps and where they come from, with the host's reasons (the start log, status, the fleet, doctor): the caps first. */
  why: string;
  /** What a run's card says of them: the caps and what they leave out, never the host's paths (docs/security.md). */
  card: string;
  /** prlimit (absolute), for mode rlimit. */
  prlimit?: string;
  caps: Caps;
  /** The jail's /tmp, bytes (bubblewrap --size; also without a cgroup). */
  tmpBytes: number;
  roots?: CgroupRoots;
  config: LimitsConfig;
}

const MiB = 1024 * 1024;

/** systemd runs this host (and its `systemd-run` can make scopes for this user). */
async function systemdWorks(env: NodeJS.ProcessEnv): Promise<string | null> {
  if (!existsSync("/run/systemd/system")) return "systemd is not this host's service manager";
  const user = process.getuid?.() !== 0 ? ["--user"] : [];
  const r = await runProcess({
    argv: ["systemd-run", ...user, "--scope", "--quiet", "--collect", "-p", "TasksMax=64", "--", "true"],
    env: { PATH: env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 10_000,
  });
  return r.exitCode === 0 ? null : `systemd-run --scope failed: ${(r.stderr || r.spawnError?.message || "").trim().split("\n").pop() ?? ""}`;
}

/** The caps the operator set (the keys given: file, variable or flag), which `auto` must honour somehow. */
export type ExplicitCaps = readonly ("memoryMiB" | "pids" | "tmpMiB")[];

/** The caps set in the config file, a variable or a flag (config provenance: `given`). */
export const explicitCaps = (given: Readonly<Record<string, string>> | undefined): ExplicitCaps =>
  (["memoryMiB", "pids", "tmpMiB"] as const).filter((k) => given?.[`agent.limits.${k}`] !== undefined);

/**
 * Which caps this seat's runs get: the mode resolved with a probe; an explicit mode that cannot work is an
 * error (thrown), and so is `auto` with caps the operator set when nothing here can honour them.
 */
export async function resolveLimits(
  c: LimitsConfig,
  env: NodeJS.ProcessEnv,
  o: { explicit?: ExplicitCaps; prlimit?: string | null } = {},
): Promise<LimitsPolicy> {
  const caps: Caps = { memoryBytes: c.memoryMiB * MiB, pids: c.pids };
  const base = { caps, tmpBytes: c.tmpMiB * MiB, config: c };
  const desc = `memory ${c.memoryMiB} MiB, ${c.pids} processes, /tmp ${c.tmpMiB} MiB`;
  if (c.mode === "none") {
    const why = "agent.limits.mode is none: runs are not capped (but /tmp, in the jail)";
    return { ...base, mode: "none", why, card: why };
  }
  const reasons: string[] = [];
  if (c.mode === "systemd" || c.mode === "auto") {
    const why = await systemdWorks(env);
    if (!why) return { ...base, mode: "systemd", why: `systemd-run scopes (${desc})`, card: `systemd-run scopes (${desc})` };
    if (c.mode === "systemd") throw new Error(`agent.limits.mode is systemd, but ${why}`);
    reasons.push(why);
  }
  if (c.mode === "cgroup" || c.mode === "auto") {
    const roots = hostRoots();
    const why = roots ? await cannotMakeGroups(roots) : "no usable cgroup hierarchy (neither a delegated cgroup v2 nor v1's memory and pids)";
    if (roots && !why)
      return { ...base, mode: "cgroup", roots, why: `cgroup ${roots.flavour} below ${roots.memory} (${desc})`, card: `a cgroup of the run's own (${desc})` };
    if (c.mode === "cgroup") throw new Error(`agent.limits.mode is cgroup, but ${why}`);
    reasons.push(why ?? "");
  }
  const prlimit = o.prlimit ?? null;
  // The caps first: a fleet cell or a card cut short still says them.
  const weaker =
    `${c.pids} processes and threads, ${c.memoryMiB} MiB of private memory a process, no file over ${c.tmpMiB} MiB, /tmp ${c.tmpMiB} MiB — ` +
    "per-process limits only (prlimit in the jail's first process), weaker than a cgroup: the processes are counted in the jail (without a jail of its own: " +
    "every process of the agent's uid on the host); the memory cap is each process's heap and private memory (RLIMIT_DATA) — not shared memory, not the " +
    "run's total: many processes can use a multiple of it; a cap met is refused to the process (its fork or allocation fails), not measured: the run is not blocked naming it";
  if (prlimit)
    return {
      ...base,
      mode: "rlimit",
      prlimit,
      why: `${weaker} (${c.mode === "rlimit" ? "agent.limits.mode is rlimit" : reasons.join("; ")})`,
      card: `${weaker} (why no cgroup: hermes-bridge doctor on the seat's host)`,
    };
  if (c.mode === "rlimit") throw new Error(`agent.limits.mode is rlimit, but prlimit (util-linux) is not installed`);
  reasons.push("prlimit (util-linux) is not installed");
  const none = `agent.limits.mode is auto and nothing here can cap a run: ${reasons.join("; ")}`;
  if (o.explicit?.length)
    throw new Error(`${none}, yet agent.limits sets ${o.explicit.map((k) => `${k}: ${c[k]}`).join(", ")}: the seat does not start uncapped`);
  return {
    ...base,
    mode: "none",
    why: `${none} (only /tmp is capped, in the jail)`,
    card: "nothing on the seat's host can cap a run, only /tmp in the jail (why: hermes-bridge doctor on the seat's host)",
  };
}

/**
 * prlimit's argv before a command (agent.limits.mode rlimit: the jail's first process inside its namespaces,
 * so RLIMIT_NPROC counts the jail's own processes — set outside, it would count every process of the uid on
 * the host); [] in any other mode. Soft and hard limits alike: the agent cannot raise them.
 */
export function rlimitArgv(p: LimitsPolicy | undefined): string[] {
  if (p?.mode !== "rlimit" || !p.prlimit) return [];
  const c = p.config;
  return [p.prlimit, `--nproc=${c.pids}`, `--data=${c.memoryMiB * MiB}`, `--fsize=${c.tmpMiB * MiB}`, "--"];
}

/**
 * The script of a jail's first process: bind each staged source onto its mount point (the pairs after the
 * first count: jail.ts stages what the agent's uid cannot reach), join each group (the files after the
 * second), then exec the rest.
 */
const JOIN = [
  'n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind "$1" "$2" || exit 125; shift 2; n=$((n-1)); done',
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done',
  'exec "$@"',
].join("; ");

/** The uid switch after joining the run's caps needs setpriv (util-linux), and the host has none. */
export class SetprivMissing extends PermanentError {
  constructor() {
    super("setpriv_missing", `${SETPRIV_MISSING}: the agent cannot be switched to its own user once it joined its caps`);
  }
}

export const SETPRIV_MISSING = "setpriv (util-linux) is not installed (Debian/Ubuntu: apt-get install util-linux)";

export interface Wrapped {
  argv: string[];
  /** The uid switch was done by the wrapper (setpriv): the process starts as the bridge's user. */
  switched: boolean;
}

/**
 * `argv` inside the run's caps: its group joined first (cgroup), or in a scope of its own (systemd), then
 * — where the agent is another uid — dropped to it with setpriv (the join needs the bridge's rights).
 */
export function capped(
  argv: readonly string[],
  o: {
    policy: LimitsPolicy | undefined;
    group: RunCgroup | null;
    unit: string;
    as: { uid: number; gid: number } | null;
    binds?: readonly (readonly [string, string])[] | undefined;
    /** setpriv and the bridge's pid: the jail dies with the bridge from its first instruction on. */
    dieWith?: { setpriv: string; parent: number } | null | undefined;
    /** setpriv's absolute path (policy.ts), for a uid switch after a join; null where the host has none. */
    setpriv?: string | null | undefined;
    /** `argv` is a bubblewrap jail's, which sets the per-process limits inside itself (jail.ts); else they are set here. */
    jailed?: boolean;
  },
): Wrapped {
  const cmd = [...(o.jailed ? [] : rlimitArgv(o.policy)), ...argv];
  const binds = o.binds ?? [];
  const files = o.policy?.mode === "cgroup" && o.group ? o.group.procsFiles : [];
  const scope = o.policy?.mode === "systemd";
  const die = o.dieWith;
  if (die) {
    // The uid switch and the parent-death signal in one setpriv (in that order: a switch clears the signal).
    const ids = o.as ? [`--reuid=${o.as.uid}`, `--regid=${o.as.gid}`, "--clear-groups", "--inh-caps=-all"] : [];
    // The last step before the jail: the parent-death signal armed after any uid switch (process/parent-death.ts).
    const armed = diesWithParent(die.setpriv, die.parent, cmd, ids);
    if (binds.length === 0 && files.length === 0 && !scope) return { argv: armed, switched: o.as !== null };
    return wrap(armed, { ...o, binds, files, scope, drop: [] });
  }
  // Nothing to do before the jail but the uid switch: the process runner does that itself.
  if (binds.length === 0 && files.length === 0 && !scope) return { argv: cmd, switched: false };
  if (o.as && !o.setpriv) throw new SetprivMissing();
  const drop = o.as && o.setpriv ? [o.setpriv, `--reuid=${o.as.uid}`, `--regid=${o.as.gid}`, "--clear-groups", "--inh-caps=-all", "--"] : [];
  return wrap(cmd, { ...o, binds, files, scope, drop });
}

function wrap(
  argv: readonly string[],
  o: {
    policy: LimitsPolicy | undefined;
    unit: string;
    as: { uid: number; gid: number } | null;
    binds: readonly (readonly [string, string])[];
    files: readonly string[];
    scope: boolean;
    drop: readonly string[];
  },
): Wrapped {
  const { binds, files, scope, drop } = o;
  // A mount namespace of the jail's own for the staged binds (they never reach the host's mounts).
  const ns = binds.length ? ["unshare", "--mount", "--propagation", "private", "--"] : [];
  const script = [...ns, "/bin/sh", "-c", JOIN, "hkb-jail", String(binds.length), ...binds.flat(), String(files.length), ...files, ...drop, ...argv];
  if (scope && o.policy) {
    const caps = o.policy.caps;
    const props = [
      ...(caps.memoryBytes !== null ? ["-p", `MemoryMax=${caps.memoryBytes}`, "-p", "MemorySwapMax=0"] : []),
      ...(caps.pids !== null ? ["-p", `TasksMax=${caps.pids}`] : []),
    ];
    const user = process.getuid?.() !== 0 ? ["--user"] : [];
    return { argv: ["systemd-run", ...user, "--scope", "--quiet", "--collect", `--unit=${o.unit}`, ...props, "--", ...script], switched: o.as !== null };
  }
  return { argv: script, switched: o.as !== null };
}

/** What the block says of a cap the run met. */
export function capText(cap: "memory" | "pids" | "tmp", p: LimitsPolicy | undefined): string {
  if (!p) return `its ${cap} cap`;
  const c = p.config;
  if (cap === "memory") return `its memory cap (agent.limits.memoryMiB: ${c.memoryMiB} MiB, swap included): the kernel killed a process of the run`;
  if (cap === "pids") return `its process cap (agent.limits.pids: ${c.pids}): the kernel refused it more processes`;
  return `its /tmp cap (agent.limits.tmpMiB: ${c.tmpMiB} MiB): the jail's /tmp is full`;
}

export { RunCgroup };
