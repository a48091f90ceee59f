// `hermes-bridge task-tools`: the MCP stdio server CLI agents get. It forwards every call to the
// daemon over the run's unix socket (HERMES_BRIDGE_TOOLS_SOCKET + HERMES_BRIDGE_TOOLS_TOKEN).
// stdout is the protocol channel: nothing else may be printed there.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { BridgeError } from "../errors/index.js";
// No debugger on SIGUSR1 for a process of the agent's jail (jail/quiet-debug.mts).
import "../jail/quiet-debug.mjs";
import { TOOLS_ENV } from "./env.js";
import { TOOL_DESCRIPTIONS, TOOL_NAMES, TOOL_SCHEMAS } from "./host.js";
import { ToolSocketClient } from "./socket.js";

export async function serveTaskTools(env: NodeJS.ProcessEnv): Promise<void> {
  const path = env[TOOLS_ENV.socket];
  const token = env[TOOLS_ENV.token];
  if (!path || !token) throw new BridgeError("tools_env_missing", `${TOOLS_ENV.socket} and ${TOOLS_ENV.token} must be set (the bridge sets them per run)`);
  const client = new ToolSocketClient(path, token);
  const server = new McpServer({ name: "task", version: "1.0.0" });
  for (const name of TOOL_NAMES) {
    server.registerTool(name, { description: TOOL_DESCRIPTIONS[name], inputSchema: TOOL_SCHEMAS[name].shape }, async (args: unknown) => {
      const a = await client.call(name, args);
      return a.ok ? { content: [{ type: "text" as const, text: a.text }] } : { content: [{ type: "text" as const, text: a.error }], isError: true };
    });
  }
  const transport = new StdioServerTransport();
  await server.connect(transport);
  await new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on("end", () => resolve());
  });
  client.close();
}
