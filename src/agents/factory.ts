// The one factory: config `agent.kind` → AgentAdapter. Adapters are loaded lazily (a seat loads only
// the one it runs, and the MCP SDK only where it is needed).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { bundledFile } from "../config/paths.js";
import type { Redactor } from "../result/redact.js";
import type { Clock } from "../time/clock.js";
import type { ProcessAgentOptions } from "./cli-agent.js";
import { agentEnv } from "./env.js";
import type { AgentAdapter } from "./port.js";

/** argv that starts `hermes-bridge task-tools` from the installed package. */
export function toolsCommand(): string[] {
  return [process.execPath, bundledFile("dist", "cli", "main.js"), "task-tools"];
}

export async function createAgent(c: Config, env: NodeJS.ProcessEnv, clock: Clock, redactor: Redactor): Promise<AgentAdapter> {
  const a = c.agent;
  const baseEnv = agentEnv(env, a.passEnv, a.env);
  const common: ProcessAgentOptions = {
    baseEnv,
    killGraceMs: a.killGraceSeconds * 1000,
    outputCapBytes: a.outputCapBytes,
    stallMs: a.stallSeconds * 1000,
    afterResultMs: a.afterResultSeconds * 1000,
    promptMaxBytes: a.promptMaxBytes,
  };
  switch (a.kind) {
    case "command": {
      const { CommandAgent } = await import("./command/adapter.js");
      return new CommandAgent({ ...common, command: a.command });
    }
    case "claude-code": {
      const { ClaudeCodeAgent } = await import("./claude-code/adapter.js");
      return new ClaudeCodeAgent({
        ...common,
        command: a.command,
        permissionMode: a.permissionMode,
        maxTurns: a.maxTurns,
        model: a.model,
        allowedTools: a.allowedTools,
        configDir: a.configDir ?? join(c.stateDir, "claude"),
        appendSystemPrompt: readFileSync(bundledFile("prompts", "claude-code.md"), "utf8"),
        toolsCommand: toolsCommand(),
        clock,
      });
    }
    case "codex": {
      const { CodexAgent } = await import("./codex/adapter.js");
      return new CodexAgent({
        ...common,
        command: a.command,
        sandbox: a.sandbox,
        model: a.model,
        home: a.home ?? join(c.stateDir, "codex"),
        extraConfig: a.config,
        toolsCommand: toolsCommand(),
        protocol: readFileSync(bundledFile("prompts", "codex.md"), "utf8"),
        clock,
      });
    }
    case "local-llm": {
      const { LocalLlmAgent } = await import("./local-llm/adapter.js");
      return new LocalLlmAgent({
        baseUrl: a.baseUrl,
        model: a.model,
        apiKey: a.apiKeyEnv ? env[a.apiKeyEnv] : undefined,
        maxSteps: a.maxSteps,
        maxTokens: a.maxTokens,
        idleTimeoutMs: a.idleTimeoutSeconds * 1000,
        temperature: a.temperature,
        systemPromptFile: a.promptFile ?? bundledFile("prompts", "local-llm.md"),
        allowCommands: a.allowCommands,
        commandTimeoutMs: a.commandTimeoutSeconds * 1000,
        outputCap: a.outputCapBytes,
        env: baseEnv,
        stallMs: common.stallMs,
        historyMaxChars: a.historyMaxChars,
        redact: (m) => redactor.redactDeep(m),
      });
    }
  }
}

/** The prompt template file for the configured agent. */
export function promptFileFor(c: Config): string {
  const a = c.agent;
  if (a.promptFile && a.kind !== "local-llm") return a.promptFile;
  return bundledFile("prompts", a.kind === "command" ? "command.md" : "task.md");
}
