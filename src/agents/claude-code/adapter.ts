// Claude Code: `claude -p --output-format stream-json --verbose` with a per-run MCP config for the
// task tools (agent-cli-contracts.md §1.2, §1.8). stdin closed, cwd = workspace, per-seat
// CLAUDE_CONFIG_DIR, MCP_CONNECTION_NONBLOCKING=0 so the tools exist at turn 1, TZ=UTC.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../time/clock.js";
import { prepareSeatRun, runCliAgent, statefulTranslator } from "../cli-agent.js";
import { type AgentAdapter, type AgentEvent, type AgentRunInput, agentEnv } from "../port.js";
import { initialClaudeState, translateClaudeLine } from "./translate.js";

export interface ClaudeOptions {
  command: readonly string[];
  permissionMode: string;
  maxTurns: number;
  model?: string | undefined;
  allowedTools: readonly string[];
  configDir: string;
  appendSystemPrompt?: string | undefined;
  env: Readonly<Record<string, string>>;
  passEnv: readonly string[];
  parentEnv: NodeJS.ProcessEnv;
  /** argv that starts `hermes-bridge task-tools`. */
  toolsCommand: readonly string[];
  killGraceMs: number;
  outputCapBytes: number;
  clock: Clock;
}

export function claudeArgv(o: ClaudeOptions, mcpConfigFile: string, prompt: string): string[] {
  const argv = [
    ...o.command,
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--mcp-config",
    mcpConfigFile,
    "--strict-mcp-config",
    "--allowedTools",
    ["mcp__task", ...o.allowedTools].join(","),
    "--permission-mode",
    o.permissionMode,
    "--max-turns",
    String(o.maxTurns),
  ];
  if (o.model) argv.push("--model", o.model);
  if (o.appendSystemPrompt) argv.push("--append-system-prompt", o.appendSystemPrompt);
  argv.push("--", prompt);
  return argv;
}

export class ClaudeCodeAgent implements AgentAdapter {
  readonly name = "claude-code";
  readonly usesTools = true;
  readonly model: string | undefined;
  constructor(private readonly o: ClaudeOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncIterable<AgentEvent> {
    const tools = prepareSeatRun(input, this.o.configDir, this.name);
    const mcp = join(input.runDir, "mcp.json");
    const [cmd = "node", ...args] = this.o.toolsCommand;
    const toolsEnv = { HERMES_BRIDGE_TOOLS_SOCKET: tools.socketPath, HERMES_BRIDGE_TOOLS_TOKEN: tools.token };
    writeFileSync(mcp, JSON.stringify({ mcpServers: { task: { type: "stdio", command: cmd, args, env: toolsEnv } } }), { mode: 0o600 });
    const env: Record<string, string> = {
      ...agentEnv(this.o.parentEnv, this.o.passEnv, this.o.env),
      MCP_CONNECTION_NONBLOCKING: "0",
      CLAUDE_CONFIG_DIR: this.o.configDir,
      TZ: "UTC",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      HERMES_BRIDGE_TASK_ID: input.taskId,
    };
    if (process.getuid?.() === 0 && this.o.permissionMode === "bypassPermissions") env.IS_SANDBOX = "1";
    return runCliAgent({
      argv: claudeArgv(this.o, mcp, input.prompt),
      env,
      input,
      killGraceMs: this.o.killGraceMs,
      outputCapBytes: this.o.outputCapBytes,
      translate: statefulTranslator(initialClaudeState("task"), (s, line) => translateClaudeLine(s, line, this.o.clock.now()), (s) => s.resultSeen),
    });
  }
}
