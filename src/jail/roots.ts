// The roots no agent ever sees, nor any parent of them: the bridge's state dir and checkouts (outbox,
// journals, seat state, every run's files, the seats' logins), every Hermes home (the boards' databases),
// the bridge's config file, its HTTP token file and the secrets mounted for it, the CLIs' execute-only
// images (the copies, not the CLIs' own paths, which the jail shows), and the bridge user's ssh
// keys, Hermes home and `~/.config`; never the bridge user's HOME itself or `/`. Every path a jail shows
// beyond the system — the agent's program, Node, the task-tools server, the operator's extras — is checked
// here, lexically and after links are resolved.
import { homedir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "../errors/index.js";
import { isInside, lexicallyUnder, realPathOf } from "../agent-files/contain.js";

/** Paths an agent never sees, and what is refused as a mount (or a workspace) at or above them. */
export interface ForbiddenRoots {
  /** Never visible, nor any parent of them. */
  roots: readonly string[];
}

export interface RootsInput {
  stateDir: string;
  localRoot: string;
  hermesHomes: readonly string[];
  /** The config file the seat was started with, and any file holding a secret of the bridge (http.tokenFile). */
  files?: readonly (string | undefined)[];
  /** The seats' CLI logins kept outside the state dir (agent.configDir, agent.home). */
  logins?: readonly (string | undefined)[];
  /** The bridge's own folders outside the state dir (the CLIs' execute-only images, agent.isolation.imageCache; the hubs' sockets, hermes.shareDir). */
  own?: readonly (string | undefined)[];
  home?: string;
}

/** Where container engines and service managers put a service's secrets. */
export const SECRET_DIRS = ["/run/secrets", "/run/credentials"] as const;

export function forbiddenRoots(o: RootsInput): ForbiddenRoots {
  const home = o.home ?? homedir();
  const given = [...(o.files ?? []), ...(o.logins ?? []), ...(o.own ?? [])].filter((p): p is string => typeof p === "string" && p.length > 0);
  return {
    roots: [o.stateDir, o.localRoot, ...o.hermesHomes, ...given, ...SECRET_DIRS, join(home, ".ssh"), join(home, ".hermes"), join(home, ".config")],
  };
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
export function checkExtras(iso: { readOnly: readonly string[]; readWrite: readonly string[] }, f: ForbiddenRoots): void {
  const issues: { path: string; message: string }[] = [];
  for (const key of ["readOnly", "readWrite"] as const)
    iso[key].forEach((p, i) => {
      const why = forbiddenWhy(p, f);
      if (why) issues.push({ path: `agent.isolation.${key}.${i}`, message: `${why}: an agent may never see it` });
      else if (!p.startsWith("/")) issues.push({ path: `agent.isolation.${key}.${i}`, message: `${p} is not an absolute path` });
    });
  if (issues.length) throw new ConfigError(issues);
}
