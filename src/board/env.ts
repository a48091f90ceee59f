// The CLI's environment: scrubbed (hermes-cli-contract.md §1.6, hazard 2). Only PATH, HOME,
// HERMES_HOME, locale, what config names, HERMES_PROFILE, and the fencing pair we set on purpose.
import { HERMES_ROUTING, pickEnv } from "../process/env.js";

const BASE_KEYS = ["PATH", "HOME", "HERMES_HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SSH_AUTH_SOCK"];

export interface CliEnvOptions {
  parent: NodeJS.ProcessEnv;
  /** Extra variable names to pass through from the parent (config `hermes.passEnv`). */
  passEnv: readonly string[];
  /** Literal values to set (config `hermes.env`, e.g. HERMES_HOME). */
  set: Readonly<Record<string, string>>;
  author: string;
}

export function buildCliEnv(o: CliEnvOptions, fence?: { taskId: string; runId: number }): Record<string, string> {
  // Never inherited or set, whatever the config says: they silently change which board/run a call hits.
  const env = pickEnv(o.parent, [...BASE_KEYS, ...o.passEnv], { never: HERMES_ROUTING, set: o.set });
  env.HERMES_PROFILE = o.author;
  env.PYTHONUNBUFFERED = "1";
  if (fence) {
    env.HERMES_KANBAN_TASK = fence.taskId;
    env.HERMES_KANBAN_RUN_ID = String(fence.runId);
  }
  return env;
}

/** What a CLI on another host (through ssh) must be told: everything but what this host's env supplied. */
export function remoteVars(o: CliEnvOptions, env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (!BASE_KEYS.includes(k) || k in o.set) out[k] = v;
  return out;
}
