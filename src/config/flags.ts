// The one flag table: every `hermes-bridge` option that sets a config value, its HERMES_BRIDGE_* env
// twin (same name, upper-cased), the config path it sets and how its text is converted. Used by the
// CLI (commander options, help) and by the loader (env and flag overrides).

export type FlagKind = "list" | "argv" | "number" | "string";

export interface FlagSpec {
  /** Flag name without dashes; the env name is HERMES_BRIDGE_<NAME> with '-' → '_'. */
  name: string;
  metavar: string;
  path: string[];
  as: FlagKind;
  help: string;
}

export const FLAGS: readonly FlagSpec[] = [
  { name: "board", metavar: "slug", path: ["boards"], as: "list", help: "board slug (comma-separated for several)" },
  { name: "assignee", metavar: "name", path: ["assignee"], as: "string", help: "this seat's lane name on the board (never a Hermes profile)" },
  { name: "author", metavar: "name", path: ["author"], as: "string", help: "author of comments (default: the assignee)" },
  { name: "hermes", metavar: "argv", path: ["hermes", "command"], as: "argv", help: 'the hermes command, e.g. "hermes" or "ssh board-host hermes"' },
  { name: "hermes-home", metavar: "dir", path: ["hermes", "home"], as: "string", help: "HERMES_HOME for the CLI" },
  {
    name: "call-server",
    metavar: "mode",
    path: ["hermes", "callServer"],
    as: "string",
    help: "auto|on|off: one warm server for all hermes calls (auto: a Python launcher that passes the handshake)",
  },
  { name: "agent", metavar: "kind", path: ["agent", "kind"], as: "string", help: "agent kind: command | claude-code | codex | local-llm" },
  {
    name: "agent-command",
    metavar: "argv",
    path: ["agent", "command"],
    as: "argv",
    help: "the agent's argv (command agent; the CLI for claude-code and codex)",
  },
  { name: "concurrency", metavar: "n", path: ["concurrency"], as: "number", help: "tasks worked at once" },
  { name: "ttl", metavar: "seconds", path: ["claim", "ttlSeconds"], as: "number", help: "claim TTL (a task's max runtime overrides it)" },
  {
    name: "heartbeat-interval",
    metavar: "seconds",
    path: ["heartbeat", "intervalSeconds"],
    as: "number",
    help: "heartbeat interval (default min(120, ttl/4))",
  },
  { name: "state-dir", metavar: "dir", path: ["stateDir"], as: "string", help: "outbox, sessions and run state (mode 0700)" },
  { name: "webhook-url", metavar: "url", path: ["webhook", "url"], as: "string", help: "alert webhook" },
  { name: "log-level", metavar: "level", path: ["log", "level"], as: "string", help: "trace|debug|info|warn|error" },
  { name: "log-format", metavar: "format", path: ["log", "format"], as: "string", help: "auto|json|pretty" },
  { name: "http-port", metavar: "port", path: ["http", "port"], as: "number", help: "loopback /healthz, /metrics, /status" },
];

export const ENV_PREFIX = "HERMES_BRIDGE_";

export function envNameFor(flag: string): string {
  return ENV_PREFIX + flag.toUpperCase().replace(/-/g, "_");
}

/** commander's camel-cased option key for a flag name. */
export function optionKey(flag: string): string {
  return flag.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
}
