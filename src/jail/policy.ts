// Which jail a seat gets (agent.isolation.mode): `bwrap` refuses to start without a working bubblewrap;
// `auto` uses it when a probe at start works — run as the agent's own user (identity.ts), in the jail's
// shape — and otherwise falls back, loudly: to `user` (the agent as its unprivileged uid, no namespaces)
// where the bridge runs as root, else to `none`; `user` and `none` are also the operator's explicit
// choices. The operator's extra paths are checked against the forbidden roots (roots.ts).
import { HOST_TOOL_PATH } from "../process/parent-death.js";
import { readFileSync, statSync } from "node:fs";
import { userInfo } from "node:os";
import { delimiter } from "node:path";
import { ConfigError } from "../errors/index.js";
import { runProcess } from "../process/runner.js";
import { realPathOf } from "../agent-files/contain.js";
import { type AgentUser, agentUser } from "./identity.js";
import { defaultImageCache } from "./image-cache.js";
import { DEFAULT_SHARED } from "../agent-files/unshare.js";
import { defaultWorkspaceRegistry } from "./registry.js";
import type { JailPolicy } from "./jail.js";
import { type LimitsPolicy, SETPRIV_MISSING } from "./limits.js";
import { resolveProgram } from "./program.js";
import { type ForbiddenRoots, checkExtras, forbiddenWhy } from "./roots.js";
import { PYTHON_RELAY, jailRelay, relayShown } from "./relay.js";
import { writeSeccomp } from "./seccomp.js";

export { type ForbiddenRoots, checkExtras, forbiddenRoots, forbiddenWhy } from "./roots.js";
export { cannotReach } from "./identity.js";

export interface IsolationConfig {
  mode: "auto" | "bwrap" | "user" | "none";
  network: "proxy" | "host" | "none";
  readOnly: readonly string[];
  readWrite: readonly string[];
  bwrap: string;
  /** Who the agent is on the host: auto, a user name, uid or uid:gid (identity.ts). */
  user: string;
  /** Where the CLIs' execute-only images are kept (images.ts); unset: defaultImageCache. */
  imageCache?: string | undefined;
  /** A workspace's files with a name outside it, for an agent that is the bridge's user (agent-files/unshare.ts). */
  sharedFiles?: "copy" | "keep" | undefined;
  sharedCopyMaxMiB?: number | undefined;
  /** The jail's first process (relay.ts jailRelay): auto — Python where /usr/bin/python3 is; node. */
  relay?: "auto" | "node" | undefined;
}

/** Where this seat keeps the CLIs' execute-only images (agent.isolation.imageCache, else the default). */
export const imageCacheOf = (iso: Pick<IsolationConfig, "imageCache">, env: NodeJS.ProcessEnv): string => iso.imageCache ?? defaultImageCache(env);

/** The bridge's own identity. */
export function bridgeUser(): { uid: number; gid: number; name: string } {
  let name = "agent";
  try {
    name = userInfo().username;
  } catch {
    // no passwd entry on the host
  }
  return { uid: process.getuid?.() ?? 1000, gid: process.getgid?.() ?? 1000, name };
}

function hostPasswd(): string {
  try {
    return readFileSync("/etc/passwd", "utf8");
  } catch {
    return "";
  }
}

/** The agent's host user for `spec` (agent.isolation.user), as this bridge runs. */
export function resolveAgentUser(spec: string): AgentUser {
  return agentUser(spec, bridgeUser(), hostPasswd());
}

/** What bubblewrap needs from a host that refuses it (user namespaces). */
export const BWRAP_ON_HOST =
  "sysctl kernel.unprivileged_userns_clone=1; Ubuntu 23.10+: kernel.apparmor_restrict_unprivileged_userns=0 or an AppArmor profile giving bwrap userns";
/** …and from a container: the options the deploy lane proved (docs/deploy.md), one spelling everywhere. */
export const BWRAP_IN_CONTAINER =
  "docker run --security-opt seccomp=deploy/docker/seccomp-bwrap.json (or seccomp=unconfined) --security-opt systempaths=unconfined " +
  "--security-opt apparmor=unconfined --security-opt no-new-privileges; compose: privileged: true with no-new-privileges:true (docs/deploy.md)";

/** A host tool the bridge runs itself (never the agent's choice): its absolute path, or null. */
export const hostTool = (program: string, path: string | undefined): string | null =>
  resolveProgram(program, [path, HOST_TOOL_PATH].filter((d) => d).join(delimiter), "/");

/** bubblewrap's own words for why it failed (its last stderr line). */
const lastLine = (s: string, fallback: string) => s.trim().split("\n").pop() || fallback;

/** Runs `true` in the jail's shape, as the agent's user: does bubblewrap work here (user namespaces, mounts, a read-only /proc/sys)? */
export async function probeBwrap(
  bwrap: string,
  env: NodeJS.ProcessEnv,
  user: AgentUser = resolveAgentUser("auto"),
  /** The jail's system-call filter (seccomp.ts): the probe loads it as every jail does. */
  seccomp: string | null = null,
): Promise<{ ok: true; path: string } | { ok: false; why: string }> {
  const path = hostTool(bwrap, env.PATH);
  let found = false;
  try {
    found = path !== null && statSync(path).isFile();
  } catch {
    found = false;
  }
  if (!path || !found) return { ok: false, why: `${bwrap} is missing: bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)` };
  // biome-ignore format: one jail option per line pair
  const argv = [path, "--unshare-user", "--ro-bind", "/", "/", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys", "--dev", "/dev", "--tmpfs", "/tmp",
    "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session", "--die-with-parent", "--cap-drop", "ALL",
    ...(seccomp ? ["--seccomp", "3"] : []), "--", "true"];
  const r = await runProcess({
    argv,
    env: { PATH: env.PATH ?? "/usr/bin:/bin" },
    timeoutMs: 10_000,
    cwd: "/",
    inheritFiles: seccomp ? [seccomp] : [],
    ...(user.same ? {} : { uid: user.uid, gid: user.gid }),
  });
  if (r.exitCode === 0) return { ok: true, path };
  const err = lastLine(r.stderr, `exit ${r.exitCode ?? r.signal ?? "?"}`);
  const as = user.same ? "" : ` (run as the agent's user, uid ${user.uid})`;
  return {
    ok: false,
    why: `${path} cannot make a sandbox here${as}: ${err} (user namespaces off? ${BWRAP_ON_HOST}; in a container: ${BWRAP_IN_CONTAINER}; or agent.isolation.mode: user)`,
  };
}

/** The seat's jail policy: mode resolved with the probe; `bwrap` without a working bubblewrap is a config error. */
/** `dir`: where the jail keeps its passwd/group files (the state dir's `jail`, state/layout.ts). */
export async function resolvePolicy(
  iso: IsolationConfig,
  o: { env: NodeJS.ProcessEnv; dir: string; forbidden: ForbiddenRoots; limits?: LimitsPolicy | undefined },
): Promise<JailPolicy> {
  checkExtras(iso, o.forbidden);
  const user = resolveAgentUser(iso.user);
  const base = {
    network: iso.network,
    readOnly: iso.readOnly.map(realPathOf),
    readWrite: iso.readWrite.map(realPathOf),
    dir: o.dir,
    bwrap: iso.bwrap,
    user,
    forbidden: o.forbidden,
    tmpBytes: o.limits?.tmpBytes,
    limits: o.limits,
    setpriv: hostTool("setpriv", o.env.PATH),
    seccomp: null as string | null,
    imageCache: imageCacheOf(iso, o.env),
    registry: defaultWorkspaceRegistry(o.env),
    relay: jailRelay(iso.relay ?? "auto").argv,
    shared: {
      mode: iso.sharedFiles ?? DEFAULT_SHARED.mode,
      maxBytes: iso.sharedCopyMaxMiB !== undefined ? iso.sharedCopyMaxMiB * 1024 * 1024 : DEFAULT_SHARED.maxBytes,
    },
  };
  if (iso.mode !== "none" && !user.same && !base.setpriv && (o.limits?.mode === "cgroup" || o.limits?.mode === "systemd"))
    throw new ConfigError([{ path: "agent.limits", message: `caps an agent of another uid, but ${SETPRIV_MISSING}` }]);
  const userMode = (why: string): JailPolicy => ({ ...base, mode: "user", why });
  if (iso.mode === "none") return { ...base, mode: "none", why: "agent.isolation.mode is none: agents run as the bridge's user, unconfined" };
  if (iso.mode === "user") {
    if (user.same)
      throw new ConfigError([
        { path: "agent.isolation.mode", message: "is user, but the bridge does not run as root: it cannot run its agents as another user" },
      ]);
    return userMode(`agent.isolation.mode is user: agents run as uid ${user.uid} (${user.name}), without a jail of their own`);
  }
  // Every jail starts the relay first (jail/relay.ts): a Node, Python or relay no agent may see is no jail at all.
  const relayWhy = relayShown(base.relay)
    .files.map((p) => [p, forbiddenWhy(p, o.forbidden)] as const)
    .find(([, why]) => why);
  if (relayWhy) {
    const py = PYTHON_RELAY.includes(relayWhy[0]) ? ", or set agent.isolation.relay: node" : "";
    const why = `the jail's first process, ${relayWhy[0]}, is where no agent may look (${relayWhy[1]}): install the bridge and its Node elsewhere${py}`;
    if (iso.mode === "bwrap") throw new ConfigError([{ path: "agent.isolation.mode", message: `is bwrap, but ${why}` }]);
    if (!user.same) return userMode(`agent.isolation.mode is auto and ${why} — agents run as uid ${user.uid} (${user.name}) without a jail`);
    return { ...base, mode: "none", why: `agent.isolation.mode is auto and ${why}` };
  }
  let seccomp = await writeSeccomp(o.dir);
  let probe = await probeBwrap(iso.bwrap, o.env, user, seccomp);
  let filtered = seccomp ? "" : `, without a system-call filter (none for ${process.arch})`;
  if (!probe.ok && seccomp) {
    // A kernel that refuses the filter still gets the jail, said so (rather than no jail at all).
    const bare = await probeBwrap(iso.bwrap, o.env, user);
    if (bare.ok) [probe, seccomp, filtered] = [bare, null, `, without a system-call filter (this kernel refused it: ${probe.why})`];
  }
  const as = user.same ? "" : `, as uid ${user.uid} (${user.name})`;
  if (probe.ok) return { ...base, seccomp, mode: "bwrap", bwrap: probe.path, why: `bubblewrap (${probe.path})${as}${filtered}` };
  if (iso.mode === "bwrap") throw new ConfigError([{ path: "agent.isolation.mode", message: `is bwrap, but ${probe.why}` }]);
  if (!user.same)
    return userMode(`agent.isolation.mode is auto and bubblewrap is not usable: ${probe.why} — agents run as uid ${user.uid} (${user.name}) without a jail`);
  return { ...base, mode: "none", why: `agent.isolation.mode is auto and bubblewrap is not usable: ${probe.why}` };
}
