// How a bubblewrap jail's first process starts: the relay (jail/relay.mts) on the bridge's own Node — it
// holds the lifeline and, with network: proxy, carries the jail's network; the environment it gets (the
// operator's NODE_OPTIONS kept aside for its child, which also imports quiet-debug.mts).
import { bundledFile } from "../config/paths.js";

/** The jail's first process (jail/relay.mts), as the jail starts it: the bridge's own Node and the relay's file. */
export const JAIL_RELAY: readonly string[] = [process.execPath, bundledFile("dist", "jail", "relay.mjs")];

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
