// HERMES_BRIDGE_* variables the bridge does not read: a misspelt one is silently ignored otherwise.
// Each gets a warning naming what was probably meant — a flag's variable (did-you-mean), or, for a name
// shaped like a nested config key (HERMES_BRIDGE_CLAIM_TTL_SECONDS, HERMES_BRIDGE_AGENT_MODEL), that key
// and how it can be set (only the flags have variables).
import type { z } from "zod";
import { ENV_PREFIX, FLAGS, envNameFor } from "./flags.js";
import { closest, keyPaths } from "./keys.js";

/**
 * Names the bridge itself sets in its agents' environment (agents/, tools/): the agent protocol, never a
 * setting. A bridge started inside an agent's run sees them; they are not typos.
 */
export const AGENT_PROTOCOL_VARS: readonly string[] = [
  "TASK_ID",
  "RUN_ID",
  "WORKSPACE",
  "CONTEXT",
  "RESULT",
  "SESSION_FILE",
  "RESUME_SESSION",
  "INBOX",
  "MODEL",
  "PROVIDER",
  "SKILLS",
  "TOOLS_SOCKET",
  "TOOLS_TOKEN",
].map((n) => ENV_PREFIX + n);

/** claim.ttlSeconds → CLAIM_TTL_SECONDS: the variable name someone would guess for a nested key. */
const envShaped = (path: readonly string[]) => path.map((p) => p.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase()).join("_");

export function envWarnings(env: NodeJS.ProcessEnv, schema: z.ZodType): string[] {
  const flagVars = FLAGS.map((f) => envNameFor(f.name));
  const known = new Set([...flagVars, ...AGENT_PROTOCOL_VARS]);
  const unknown = Object.keys(env)
    .filter((k) => k.startsWith(ENV_PREFIX) && !known.has(k))
    .sort();
  if (unknown.length === 0) return [];
  // Compared without the prefix, so the threshold of a likely typo is the length of what was typed.
  const strip = (n: string) => n.slice(ENV_PREFIX.length);
  const keys = keyPaths(schema).map((p) => ({ path: p.join("."), shaped: envShaped(p) }));
  const flagOf = (path: string) => FLAGS.find((f) => f.path.join(".") === path);
  return unknown.map((name) => {
    const typed = strip(name);
    const best = keys.find((k) => k.shaped === typed)?.shaped ?? closest(typed, [...flagVars.map(strip), ...keys.map((k) => k.shaped)]);
    const key = keys.find((k) => k.shaped === best);
    const says = `${name} is not a setting the bridge reads`;
    if (best !== undefined && flagVars.includes(ENV_PREFIX + best) && !(key && key.shaped === typed)) return `${says} — did you mean ${ENV_PREFIX + best}?`;
    if (key) {
      const flag = flagOf(key.path);
      return flag
        ? `${says} — ${key.path} is set by ${envNameFor(flag.name)} (or --${flag.name})`
        : `${says} — did you mean the config key ${key.path}? It has no variable: set it in the config file`;
    }
    return `${says} (the variables are the flags' names, e.g. ${flagVars.slice(0, 3).join(", ")}; see --help)`;
  });
}
