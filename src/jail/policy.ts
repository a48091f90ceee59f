// Which jail a seat gets (agent.isolation.mode): `bwrap` refuses to start without a working bubblewrap;
// `auto` uses it when a probe at start works, else runs agents unjailed and says so loudly; `none` is
// the operator's explicit choice. The operator's extra paths are checked against the roots an agent
// must never see (the bridge's state dir, its checkouts, every Hermes home, the bridge user's HOME and
// its ssh keys), lexically and after links are resolved, parents included.
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { isInside, lexicallyUnder, realPathOf } from "../sandbox/contain.js";
import type { JailPolicy } from "./jail.js";
import { resolveProgram } from "./jail.js";

export interface IsolationConfig {
  mode: "auto" | "bwrap" | "none";
  network: "host" | "none";
  readOnly: readonly string[];
  readWrite: readonly string[];
  bwrap: string;
}

/** Paths an agent never sees, and what is refused as an extra (or a workspace) at or above them. */
export interface ForbiddenRoots {
  /** Never visible, nor any parent of them. */
  roots: readonly string[];
}

/** The seat's forbidden roots: its state dir, checkouts, the Hermes homes, the bridge user's HOME (itself) and its ssh keys. */
export function forbiddenRoots(o: { stateDir: string; localRoot: string; hermesHomes: readonly string[]; home?: string }): ForbiddenRoots {
  const home = o.home ?? homedir();
  return { roots: [o.stateDir, o.localRoot, ...o.hermesHomes, join(home, ".ssh"), join(home, ".hermes")] };
}

/** Why `p` may not be shown to an agent (inside a forbidden root, or a parent of one; HOME itself), or null. */
export function forbiddenWhy(p: string, f: ForbiddenRoots, o: { home?: string } = {}): string | null {
  const home = o.home ?? homedir();
  const real = realPathOf(p);
  for (const r of f.roots) {
    if (isInside(r, p) || lexicallyUnder(r, p)) return `${p} is inside ${r}`;
    if (isInside(p, r) || lexicallyUnder(p, r)) return `${p} contains ${r}`;
  }
  if (real === realPathOf(home) || real === "/") return `${p} is ${real === "/" ? "the root directory" : "the bridge user's HOME"}`;
  return null;
}

/** The operator's extras, checked (a refused one is a config error naming its key). */
export function checkExtras(iso: IsolationConfig, f: ForbiddenRoots): void {
  const issues: { path: string; message: string }[] = [];
  for (const key of ["readOnly", "readWrite"] as const)
    iso[key].forEach((p, i) => {
      const why = forbiddenWhy(p, f);
      if (why) issues.push({ path: `agent.isolation.${key}.${i}`, message: `${why}: an agent may never see it` });
      else if (!p.startsWith("/")) issues.push({ path: `agent.isolation.${key}.${i}`, message: `${p} is not an absolute path` });
    });
  if (issues.length) throw new ConfigError(issues);
}

/** Runs `true` in the jail's shape: does bubblewrap work here (user namespaces, mounts)? */
export async function probeBwrap(bwrap: string, env: NodeJS.ProcessEnv): Promise<{ ok: true; path: string } | { ok: false; why: string }> {
  const path = resolveProgram(bwrap, env.PATH, "/");
  if (!path) return { ok: false, why: `${bwrap} is not installed (Debian/Ubuntu: apt-get install bubblewrap)` };
  const r = await runProcess({
    argv: [
      path,
      "--ro-bind",
      "/",
      "/",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--tmpfs",
      "/tmp",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--new-session",
      "--die-with-parent",
      "--cap-drop",
      "ALL",
      "--",
      "true",
    ],
    env: { PATH: env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 10_000,
  });
  if (r.exitCode === 0) return { ok: true, path };
  const err = r.stderr.trim().split("\n").pop() ?? `exit ${r.exitCode ?? r.signal ?? "?"}`;
  return {
    ok: false,
    why: `${path} cannot make a sandbox here: ${err} (user namespaces off? sysctl kernel.unprivileged_userns_clone=1, or in a container: --security-opt seccomp=unconfined / a second uid for agents)`,
  };
}

/** The seat's jail policy: mode resolved with the probe; `bwrap` without a working bubblewrap is a config error. */
/** `dir`: where the jail keeps its passwd/group files (the state dir's `jail`, state/layout.ts). */
export async function resolvePolicy(iso: IsolationConfig, o: { env: NodeJS.ProcessEnv; dir: string; forbidden: ForbiddenRoots }): Promise<JailPolicy> {
  checkExtras(iso, o.forbidden);
  const base = {
    network: iso.network,
    readOnly: iso.readOnly.map(realPathOf),
    readWrite: iso.readWrite.map(realPathOf),
    dir: o.dir,
    bwrap: iso.bwrap,
  };
  if (iso.mode === "none") return { ...base, mode: "none", why: "agent.isolation.mode is none: agents run as the bridge's user, unconfined" };
  const probe = await probeBwrap(iso.bwrap, o.env);
  if (probe.ok) return { ...base, mode: "bwrap", bwrap: probe.path, why: `bubblewrap (${probe.path})` };
  if (iso.mode === "bwrap") throw new ConfigError([{ path: "agent.isolation.mode", message: `is bwrap, but ${probe.why}` }]);
  return { ...base, mode: "none", why: `agent.isolation.mode is auto and bubblewrap is not usable: ${probe.why}` };
}
