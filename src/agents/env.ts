// The one agent-environment policy: an allow-list of the bridge's environment plus what the operator
// names (agent.passEnv) and sets (agent.env). Never HERMES_HOME, HERMES_KANBAN_*, profiles or the
// delegated-child guard, whatever the config says. Used for agents, their pre-flight and the gate.
import { HERMES_ANY_CONTROL, pickEnv } from "../process/env.js";

export const AGENT_BASE_ENV = ["PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR", "USER", "LOGNAME", "SHELL", "TERM"] as const;

export function agentEnv(parent: NodeJS.ProcessEnv, passEnv: readonly string[], set: Readonly<Record<string, string>>): Record<string, string> {
  return pickEnv(parent, [...AGENT_BASE_ENV, ...passEnv], { never: HERMES_ANY_CONTROL, set });
}
