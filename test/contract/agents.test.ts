// Every adapter through the conformance suite: command (fixture agent), claude-code and codex
// (fixture CLIs over the real MCP task server), local-llm (scripted OpenAI-compatible server).
import { resolve } from "node:path";
import { ClaudeCodeAgent } from "../../src/agents/claude-code/adapter.js";
import { CodexAgent } from "../../src/agents/codex/adapter.js";
import { CommandAgent } from "../../src/agents/command/adapter.js";
import { toolsCommand } from "../../src/agents/cli-agent.js";
import { LocalLlmAgent } from "../../src/agents/local-llm/adapter.js";
import { bundledFile } from "../../src/config/paths.js";
import { systemClock } from "../../src/time/clock.js";
import { OpenAiMock, call, finish, text } from "../helpers/openai-mock.js";
import { agentConformance } from "./agent-conformance.js";

const AGENT = resolve("test/fixtures/agents/agent.mjs");
const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const proc = (stallMs: number, extraEnv: Record<string, string> = {}) => ({
  baseEnv: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...extraEnv },
  killGraceMs: 500,
  outputCapBytes: 1 << 20,
  stallMs,
  afterResultMs: 15_000,
  promptMaxBytes: 1 << 20,
});
const SCRIPT = { success: "complete", block: "block-bad-then-good", crash: "crash", hang: "hang", stall: "stall" } as const;

agentConformance("command", {
  make: async (_s, _dir, o) => ({ agent: new CommandAgent({ ...proc(o.stallMs), command: [process.execPath, AGENT] }), prompt: "" }),
});

agentConformance("claude-code", {
  make: async (s, dir, o) => ({
    agent: new ClaudeCodeAgent({
      ...proc(o.stallMs, { FAKE_CLI: "claude", FAKE_SCRIPT: SCRIPT[s] }),
      command: [process.execPath, FAKE],
      permissionMode: "acceptEdits",
      maxTurns: 10,
      allowedTools: [],
      configDir: `${dir}/claude`,
      clock: systemClock,
      toolsCommand: toolsCommand(),
    }),
    prompt: "work",
  }),
});

agentConformance("codex", {
  make: async (s, dir, o) => ({
    agent: new CodexAgent({
      ...proc(o.stallMs, { FAKE_CLI: "codex", FAKE_SCRIPT: SCRIPT[s] }),
      command: [process.execPath, FAKE],
      sandbox: "workspace-write",
      home: `${dir}/codex`,
      extraConfig: [],
      protocol: "",
      clock: systemClock,
      toolsCommand: toolsCommand(),
    }),
    prompt: "work",
  }),
});

agentConformance("local-llm", {
  make: async (s, _dir, o) => {
    const good = '{"summary":"ok","result":{"ok":true,"status":"ok","items":1}}';
    const blockArgs = '{"cause":"spec undecided","what_happened":"x","options":["a"],"recommendation":"a","next_action":"pick"}';
    // "hang": a model that keeps working (a tool call every 100 ms) and never finishes.
    const working = Array.from({ length: 300 }, (_, i) => ({ delayMs: 100, chunks: [call(0, `c${i}`, "list_dir", "{}"), finish("tool_calls")] }));
    const mock = await OpenAiMock.start(
      s === "success"
        ? [{ chunks: [call(0, "c1", "kanban_complete", good), finish("tool_calls")] }]
        : s === "block"
          ? [{ chunks: [call(0, "c1", "kanban_block", blockArgs), finish("tool_calls")] }]
          : s === "crash"
            ? [{ status: 500, body: { error: { message: "model crashed" } } }]
            : s === "hang"
              ? working
              : [{ hangAfter: [text("thinking")] }],
    );
    const agent = new LocalLlmAgent({
      baseUrl: mock.baseUrl,
      model: "mock-coder",
      apiKey: undefined,
      maxSteps: 1000,
      maxTokens: 100_000,
      idleTimeoutMs: 60_000,
      temperature: 0,
      systemPromptFile: bundledFile("prompts", "local-llm.md"),
      allowCommands: [],
      commandTimeoutMs: 1000,
      outputCap: 10_000,
      env: {},
      stallMs: o.stallMs,
      historyMaxChars: 100_000,
      redact: (m) => m,
    });
    return { agent, prompt: "work", cleanup: () => mock.close() };
  },
});
