// The one agent-environment policy: an allow-list of the bridge's environment plus what the operator
// names (agent.passEnv) and sets (agent.env). Never HERMES_HOME, HERMES_KANBAN_*, profiles or the
// delegated-child guard, whatever the config says. Used for agents, their pre-flight and the gate.

export const AGENT_BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"] as const;

const NEVER = /^HERMES_(HOME|KANBAN_|PROFILE|DELEGATED)/;

export function agentEnv(parent: NodeJS.ProcessEnv, passEnv: readonly string[], set: Readonly<Record<string, string>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of [...AGENT_BASE_ENV, ...passEnv]) {
    if (NEVER.test(k)) continue;
    const v = parent[k];
    if (v !== undefined) env[k] = v;
  }
  for (const [k, v] of Object.entries(set)) if (!NEVER.test(k)) env[k] = v;
  return env;
}
