// How a bubblewrap jail's first process starts: the relay — it holds the lifeline and, with network: proxy,
// carries the jail's network; the environment it gets (the operator's NODE_OPTIONS kept aside for its child,
// which also imports quiet-debug.mts). Two of the same contract: jail/relay.py in the host's Python (a start
// of ~0.02 CPU-s, once per run) where /usr/bin/python3 is, else jail/relay.mts on the bridge's own Node
// (~0.1 CPU-s); agent.isolation.relay picks one. The Node one is also git's ssh ProxyCommand (`--connect`).
import { existsSync } from "node:fs";
import { bundledFile } from "../config/paths.js";

/** The relay on the bridge's own Node (jail/relay.mts): the `--connect` client always, the jail's first process where no Python is. */
export const NODE_RELAY: readonly string[] = [process.execPath, bundledFile("dist", "jail", "relay.mjs")];
/** The relay in the host's Python (jail/relay.py): isolated (-I) and without site (-S), the jail's paths never on its sys.path. */
export const PYTHON_RELAY: readonly string[] = ["/usr/bin/python3", "-I", "-S", bundledFile("dist", "jail", "relay.py")];

/** The paths of a relay's argv (its program and file): what a jail must show and no forbidden root may hold. */
export const relayPaths = (argv: readonly string[]) => argv.filter((p) => p.startsWith("/"));

/**
 * What a jail whose first process is `relay` shows of the relays: both relays' files — git's ssh reaches the proxy
 * through the Node one's `--connect` (egress/plan.ts) — and the images that run from execute-only copies where the
 * CLI's stream is its own (run-jail.ts): the relay's program, and the bridge's Node (the task-tools server runs on it).
 */
export const relayShown = (relay: readonly string[]) => ({
  files: relayPaths([...relay, ...NODE_RELAY]),
  images: [...new Set([relay[0] ?? "", NODE_RELAY[0] ?? ""])].filter((p) => p !== ""),
});

/** The jail's first process for agent.isolation.relay: auto — the Python one where /usr/bin/python3 is, else the Node one. */
export function jailRelay(choice: "auto" | "node"): { argv: readonly string[] } {
  // sync-io: the host's interpreter and the bridge's own file, looked at once at the seat's start
  const python = choice === "auto" && relayPaths(PYTHON_RELAY).every((p) => existsSync(p));
  return { argv: python ? PYTHON_RELAY : NODE_RELAY };
}

/** The module every Node process holding an agent CLI's stream imports first (no debugger on SIGUSR1). */
export const QUIET_DEBUG = bundledFile("dist", "jail", "quiet-debug.mjs");
/**
 * The variable the relay's child gets its NODE_OPTIONS from (jail/relay.mts spells it too: it imports nothing of
 * the bridge's): the relay's own Node starts without the operator's options — a `--require` of a relative path
 * would otherwise load a file of the workspace into the process that holds the stream and the lifeline.
 */
export const RELAY_CHILD_NODE_OPTIONS = "HKB_RELAY_CHILD_NODE_OPTIONS";

/** The jail's environment: NODE_OPTIONS kept aside for the relay's child. */
export function relayEnv(env: Readonly<Record<string, string>>, nodeOptions: string | undefined): Record<string, string> {
  const { NODE_OPTIONS: _own, [RELAY_CHILD_NODE_OPTIONS]: _forged, ...rest } = env;
  return nodeOptions === undefined ? rest : { ...rest, [RELAY_CHILD_NODE_OPTIONS]: nodeOptions };
}

/** NODE_OPTIONS with one more `--import` (quoted as Node's parser reads it), after the operator's own. */
export const withImport = (options: string | undefined, file: string) =>
  [options?.trim(), `--import=${/[\s"\\]/.test(file) ? `"${file.replace(/[\\"]/g, "\\$&")}"` : file}`].filter((o) => o).join(" ");

/**
 * The first module NODE_OPTIONS would load by a path that is not absolute (`./x.js`, or a package name: found
 * from the process's working directory — the agent's workspace, which the agent writes), or null.
 */
export function relativeLoad(nodeOptions: string | undefined): string | null {
  const re = /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)(?:=|\s+)("[^"]*"|'[^']*'|\S+)/g;
  for (const m of (nodeOptions ?? "").matchAll(re)) {
    const v = (m[1] ?? "").replace(/^["']|["']$/g, "");
    if (!/^(?:\/|file:\/\/\/|node:)/.test(v)) return v;
  }
  return null;
}
