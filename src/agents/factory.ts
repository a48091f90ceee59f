// The one factory: config `agent.kind` → AgentAdapter.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config/schema.js";
import { bundledFile } from "../config/paths.js";
import type { Clock } from "../time/clock.js";
import { ClaudeCodeAgent } from "./claude-code/adapter.js";
import { CodexAgent } from "./codex/adapter.js";
import { CommandAgent } from "./command/adapter.js";
import { LocalLlmAgent } from "./local-llm/adapter.js";
import { type AgentAdapter, agentEnv } from "./port.js";

/** argv that starts `hermes-bridge task-tools` from the installed package. */
export function toolsCommand(): string[] {
  return [process.execPath, bundledFile("dist", "cli", "main.js"), "task-tools"];
}

export function createAgent(c: Config, env: NodeJS.ProcessEnv, clock: Clock): AgentAdapter {
  const a = c.agent;
  const common = { env: a.env, passEnv: a.passEnv, parentEnv: env, killGraceMs: a.killGraceSeconds * 1000, outputCapBytes: a.outputCapBytes };
  switch (a.kind) {
    case "command":
      return new CommandAgent({ command: a.command, env: a.env, passEnv: a.passEnv, outputCapBytes: a.outputCapBytes, killGraceMs: a.killGraceSeconds * 1000, parentEnv: env });
    case "claude-code":
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
    case "codex":
      return new CodexAgent({ ...common, command: a.command, sandbox: a.sandbox, model: a.model, home: a.home ?? join(c.stateDir, "codex"), extraConfig: a.config, toolsCommand: toolsCommand(), protocol: readFileSync(bundledFile("prompts", "codex.md"), "utf8"), clock });
    case "local-llm":
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
        env: agentEnv(env, a.passEnv, a.env),
      });
  }
}

/** The prompt template file for the configured agent. */
export function promptFileFor(c: Config): string {
  const a = c.agent;
  if (a.promptFile && a.kind !== "local-llm") return a.promptFile;
  return bundledFile("prompts", a.kind === "command" ? "command.md" : "task.md");
}
