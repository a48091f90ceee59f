// The CLI's environment: scrubbed (hermes-cli-contract.md §1.6, hazard 2). Only PATH, HOME,
// HERMES_HOME, locale, what config names, HERMES_PROFILE, and the fencing pair we set on purpose.

const BASE_KEYS = ["PATH", "HOME", "HERMES_HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SSH_AUTH_SOCK"];

/** Never inherited, whatever the config says: they silently change which board/run a call hits. */
export const FORBIDDEN_KEYS = new Set([
  "HERMES_KANBAN_DB",
  "HERMES_KANBAN_BOARD",
  "HERMES_KANBAN_HOME",
  "HERMES_KANBAN_TASK",
  "HERMES_KANBAN_RUN_ID",
  "HERMES_KANBAN_WORKSPACES_ROOT",
  "HERMES_KANBAN_CLAIM_LOCK",
  "HERMES_DELEGATED_CHILD_CONTEXT",
  "HERMES_PROFILE_NAME",
]);

export interface CliEnvOptions {
  parent: NodeJS.ProcessEnv;
  /** Extra variable names to pass through from the parent (config `hermes.passEnv`). */
  passEnv: readonly string[];
  /** Literal values to set (config `hermes.env`, e.g. HERMES_HOME). */
  set: Readonly<Record<string, string>>;
  author: string;
}

export function buildCliEnv(o: CliEnvOptions, fence?: { taskId: string; runId: number }): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of [...BASE_KEYS, ...o.passEnv]) {
    const v = o.parent[key];
    if (v !== undefined && !FORBIDDEN_KEYS.has(key)) env[key] = v;
  }
  for (const [k, v] of Object.entries(o.set)) if (!FORBIDDEN_KEYS.has(k)) env[k] = v;
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
