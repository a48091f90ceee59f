// Every adapter through the conformance suite: command (fixture agent), claude-code and codex
// (fixture CLIs over the real MCP task server), local-llm (scripted OpenAI-compatible server).
import { resolve } from "node:path";
import { ClaudeCodeAgent } from "../../src/agents/claude-code/adapter.js";
import { CodexAgent } from "../../src/agents/codex/adapter.js";
import { CommandAgent } from "../../src/agents/command/adapter.js";
import { toolsCommand } from "../../src/agents/factory.js";
import { LocalLlmAgent } from "../../src/agents/local-llm/adapter.js";
import { bundledFile } from "../../src/config/paths.js";
import { systemClock } from "../../src/time/clock.js";
import { OpenAiMock, call, finish, text } from "../helpers/openai-mock.js";
import { agentConformance } from "./agent-conformance.js";

const AGENT = resolve("test/fixtures/agents/agent.mjs");
const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const base = { env: {}, passEnv: ["FAKE_CLI", "FAKE_SCRIPT"], killGraceMs: 500, outputCapBytes: 1 << 20, clock: systemClock, toolsCommand: toolsCommand() };
const SCRIPT = { success: "complete", block: "block-bad-then-good", crash: "crash", hang: "hang" } as const;

agentConformance("command", {
  make: async () => ({ agent: new CommandAgent({ command: [process.execPath, AGENT], env: {}, passEnv: [], outputCapBytes: 1 << 20, killGraceMs: 500, parentEnv: process.env }), prompt: "" }),
});

agentConformance("claude-code", {
  make: async (s) => ({
    agent: new ClaudeCodeAgent({ ...base, command: [process.execPath, FAKE], permissionMode: "acceptEdits", maxTurns: 10, allowedTools: [], configDir: "/tmp/hkb-claude", parentEnv: { ...process.env, FAKE_CLI: "claude", FAKE_SCRIPT: SCRIPT[s] } }),
    prompt: "work",
  }),
});

agentConformance("codex", {
  make: async (s) => ({
    agent: new CodexAgent({ ...base, command: [process.execPath, FAKE], sandbox: "workspace-write", home: "/tmp/hkb-codex", extraConfig: [], protocol: "", parentEnv: { ...process.env, FAKE_CLI: "codex", FAKE_SCRIPT: SCRIPT[s] } }),
    prompt: "work",
  }),
});

agentConformance("local-llm", {
  make: async (s) => {
    const good = '{"summary":"ok","result":{"ok":true,"status":"ok","items":1}}';
    const blockArgs = '{"cause":"spec undecided","what_happened":"x","options":["a"],"recommendation":"a","next_action":"pick"}';
    const mock = await OpenAiMock.start(
      s === "success"
        ? [{ chunks: [call(0, "c1", "kanban_complete", good), finish("tool_calls")] }]
        : s === "block"
          ? [{ chunks: [call(0, "c1", "kanban_block", blockArgs), finish("tool_calls")] }]
          : s === "crash"
            ? [{ status: 500, body: { error: { message: "model crashed" } } }]
            : [{ hangAfter: [text("thinking")] }],
    );
    const agent = new LocalLlmAgent({
      baseUrl: mock.baseUrl,
      model: "mock-coder",
      apiKey: undefined,
      maxSteps: 4,
      maxTokens: 100_000,
      idleTimeoutMs: 60_000,
      temperature: 0,
      systemPromptFile: bundledFile("prompts", "local-llm.md"),
      allowCommands: [],
      commandTimeoutMs: 1000,
      outputCap: 10_000,
      env: {},
    });
    return { agent, prompt: "work", cleanup: () => mock.close() };
  },
});
