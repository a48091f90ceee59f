// Claude Code: `claude -p --output-format stream-json --verbose` with a per-run MCP config for the
// task tools (agent-cli-contracts.md §1.2, §1.8), `--resume <session>` to continue a cut run (§1.9:
// sessions are found by cwd, so the workspace path must be the same). stdin closed, cwd = workspace,
// per-seat CLAUDE_CONFIG_DIR, MCP_CONNECTION_NONBLOCKING=0 so the tools exist at turn 1, TZ=UTC.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../../time/clock.js";
import { TOOLS_ENV } from "../../tools/env.js";
import { type ProcessAgentOptions, prepareSeatRun, runCliAgent, statefulTranslator } from "../cli-agent.js";
import type { AgentAdapter, AgentEvent, AgentRunInput } from "../port.js";
import { initialClaudeState, translateClaudeLine } from "./translate.js";

export interface ClaudeOptions extends ProcessAgentOptions {
  command: readonly string[];
  permissionMode: string;
  maxTurns: number;
  model?: string | undefined;
  allowedTools: readonly string[];
  configDir: string;
  appendSystemPrompt?: string | undefined;
  /** argv that starts `hermes-bridge task-tools`. */
  toolsCommand: readonly string[];
  clock: Clock;
}

export function claudeArgv(o: ClaudeOptions, mcpConfigFile: string, prompt: string, resume?: string): string[] {
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
  if (resume) argv.push("--resume", resume);
  if (o.model) argv.push("--model", o.model);
  if (o.appendSystemPrompt) argv.push("--append-system-prompt", o.appendSystemPrompt);
  argv.push("--", prompt);
  return argv;
}

export class ClaudeCodeAgent implements AgentAdapter {
  readonly name = "claude-code";
  readonly usesTools = true;
  readonly resumable = true;
  readonly model: string | undefined;
  constructor(private readonly o: ClaudeOptions) {
    this.model = o.model;
  }

  run(input: AgentRunInput): AsyncGenerator<AgentEvent> {
    const tools = prepareSeatRun(input, this.o.configDir, this.name);
    const mcp = join(input.runDir, "mcp.json");
    const [cmd = "node", ...args] = this.o.toolsCommand;
    const toolsEnv = { [TOOLS_ENV.socket]: tools.socketPath, [TOOLS_ENV.token]: tools.token };
    writeFileSync(mcp, JSON.stringify({ mcpServers: { task: { type: "stdio", command: cmd, args, env: toolsEnv } } }), { mode: 0o600 });
    const env: Record<string, string> = {
      ...this.o.baseEnv,
      MCP_CONNECTION_NONBLOCKING: "0",
      CLAUDE_CONFIG_DIR: this.o.configDir,
      TZ: "UTC",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      HERMES_BRIDGE_TASK_ID: input.taskId,
    };
    if (process.getuid?.() === 0 && this.o.permissionMode === "bypassPermissions") env.IS_SANDBOX = "1";
    const prompt = input.resume ? input.resume.prompt : input.prompt;
    return runCliAgent({
      argv: claudeArgv(this.o, mcp, prompt, input.resume?.session),
      env,
      input,
      o: this.o,
      translate: statefulTranslator(
        initialClaudeState("task"),
        (s, line) => translateClaudeLine(s, line, this.o.clock.now()),
        (s) => s.resultSeen,
      ),
    });
  }
}
