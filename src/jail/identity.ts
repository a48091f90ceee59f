// Who the agent is on the host (agent.isolation.user) — never root. A bridge that is not root runs its
// agents as itself (it cannot be anyone else). A bridge running as root (usual in containers and on CI
// boxes) runs them as an unprivileged user: inside the jail's own user namespace the agent then maps to a
// host uid that owns nothing of the host, so /proc/sys, the kernel's other knobs and every root-owned
// file stay out of its reach even where a mount shows them (a uid-0 agent without capabilities could
// still write `kernel.core_pattern`, whose program the kernel runs as host root). `auto` picks the host's
// `hermes-agent` user when it has one (the image and the systemd guide make it), else nobody (65534).
import { type Stats, statSync } from "node:fs";
import { dirname } from "node:path";
import { ConfigError } from "../errors/index.js";
import { realPathOf } from "../agent-files/contain.js";

export interface AgentUser {
  uid: number;
  gid: number;
  /** The name shown in the jail's passwd line. */
  name: string;
  /** The bridge's own uid: nothing is handed over, no uid is switched. */
  same: boolean;
}

/** The user `auto` picks for a bridge running as root, when the host has it. */
export const AGENT_USER_NAME = "hermes-agent";
const NOBODY = { uid: 65534, gid: 65534, name: "nobody" };

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

/** The entries of a passwd file's text (malformed lines skipped). */
export function passwdEntries(text: string): PasswdEntry[] {
  const out: PasswdEntry[] = [];
  for (const line of text.split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (!name || uid === undefined || gid === undefined || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) continue;
    out.push({ name, uid: Number(uid), gid: Number(gid) });
  }
  return out;
}

const KEY = "agent.isolation.user";

/**
 * The agent's user from `spec` ("auto", a user name, "uid" or "uid:gid"), for a bridge running as
 * `self`. A bridge that is not root can only run its agents as itself; uid 0 is never an agent's uid.
 */
export function agentUser(spec: string, self: { uid: number; gid: number; name: string }, passwd: string): AgentUser {
  const entries = passwdEntries(passwd);
  const own = { ...self, same: true };
  const pick = (): Omit<AgentUser, "same"> => {
    if (spec === "auto") {
      const named = entries.find((e) => e.name === AGENT_USER_NAME);
      return named ?? entries.find((e) => e.uid === NOBODY.uid) ?? NOBODY;
    }
    const ids = /^(\d+)(?::(\d+))?$/.exec(spec);
    if (ids) {
      const uid = Number(ids[1]);
      const known = entries.find((e) => e.uid === uid);
      return { uid, gid: ids[2] !== undefined ? Number(ids[2]) : (known?.gid ?? uid), name: known?.name ?? "agent" };
    }
    const named = entries.find((e) => e.name === spec);
    if (!named) throw new ConfigError([{ path: KEY, message: `there is no user '${spec}' in /etc/passwd (give a name the host has, or uid[:gid])` }]);
    return named;
  };
  if (self.uid !== 0) {
    if (spec === "auto") return own;
    const want = pick();
    if (want.uid === self.uid && want.gid === self.gid) return own;
    throw new ConfigError([
      {
        path: KEY,
        message: `is ${spec} (uid ${want.uid}), but the bridge runs as uid ${self.uid}: only a bridge running as root can run its agents as another user (leave it auto)`,
      },
    ]);
  }
  const u = pick();
  if (u.uid === 0 || u.gid === 0)
    throw new ConfigError([
      { path: KEY, message: `is ${spec}: an agent never runs as root (uid or gid 0) — it would be host root outside its jail's namespaces` },
    ]);
  return { ...u, name: u.name.replace(/[^A-Za-z0-9._-]/g, "") || "agent", same: false };
}

/**
 * Why the agent's user cannot reach `path` (a directory above it it may not pass), or null. bubblewrap,
 * started as that user, resolves every path it mounts as that user: a run dir under a 0700 parent (a
 * state dir under /root) cannot be shown to it.
 */
export function cannotReach(path: string, user: AgentUser): string | null {
  if (user.same) return null;
  let dir = realPathOf(path);
  for (let up = dirname(dir); up !== dir; dir = up, up = dirname(dir)) {
    let st: Stats;
    try {
      st = statSync(up);
    } catch {
      return null; // not there yet: mkdir makes it as the bridge's, checked when it exists
    }
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0)
      return `the agent's user (uid ${user.uid}) cannot pass ${up} (mode ${(st.mode & 0o777).toString(8)}, owner uid ${st.uid}) on the way to ${path}`;
  }
  return null;
}
