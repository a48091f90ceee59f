// How a CLI agent's MCP server (`hermes-bridge task-tools`) finds its run: two variables, set per run.
export const TOOLS_ENV = {
  socket: "HERMES_BRIDGE_TOOLS_SOCKET",
  token: "HERMES_BRIDGE_TOOLS_TOKEN",
} as const;
