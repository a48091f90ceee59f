// Every agent kind of AGENT_KINDS through the conformance suite, each adapter made the way the daemon
// makes it — its config part parsed by the kind's own schema, then the kind's `create` — against a
// fixture: command (the fixture agent), claude-code and codex (fixture CLIs over the real MCP task
// server), local-llm (a scripted OpenAI-compatible server). A kind added to the list without a fixture
// here fails the suite.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_KINDS } from "../../src/agents/kinds.js";
import type { AgentKind } from "../../src/agents/kind.js";
import type { Config } from "../../src/config/schema.js";
import { Redactor } from "../../src/result/redact.js";
import { systemClock } from "../../src/time/clock.js";
import { OpenAiMock, call, finish, text } from "../helpers/openai-mock.js";
import { type ConformanceHarness, type Scenario, agentConformance } from "./agent-conformance.js";

const AGENT = resolve("test/fixtures/agents/agent.mjs");
const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const SCRIPT = { success: "complete", block: "block-bad-then-good", crash: "crash", hang: "hang", stall: "stall" } as const;

/** The config keys every process-based fixture shares. */
const common = (stallMs: number, env: Record<string, string> = {}) => ({
  passEnv: ["PATH", "HOME"],
  env,
  killGraceSeconds: 0.5,
  stallSeconds: stallMs / 1000,
  afterResultSeconds: 15,
});

/** Each kind's fixture: its config part (and a server to tear down) for a scenario. */
type Fixture = (s: Scenario, dir: string, stallMs: number) => Promise<{ agent: Record<string, unknown>; prompt: string; cleanup?: () => Promise<void> }>;

const FIXTURES: Record<string, Fixture> = {
  command: async (_s, _dir, stallMs) => ({ agent: { kind: "command", command: [process.execPath, AGENT], ...common(stallMs) }, prompt: "" }),
  "claude-code": async (s, dir, stallMs) => ({
    agent: {
      kind: "claude-code",
      command: [process.execPath, FAKE],
      maxTurns: 10,
      configDir: `${dir}/claude`,
      ...common(stallMs, { FAKE_CLI: "claude", FAKE_SCRIPT: SCRIPT[s] }),
    },
    prompt: "work",
  }),
  codex: async (s, dir, stallMs) => ({
    agent: { kind: "codex", command: [process.execPath, FAKE], home: `${dir}/codex`, ...common(stallMs, { FAKE_CLI: "codex", FAKE_SCRIPT: SCRIPT[s] }) },
    prompt: "work",
  }),
  "local-llm": async (s, _dir, stallMs) => {
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
    return {
      agent: {
        kind: "local-llm",
        baseUrl: mock.baseUrl,
        model: "mock-coder",
        maxSteps: 1000,
        maxTokens: 100_000,
        idleTimeoutSeconds: 60,
        temperature: 0,
        ...common(stallMs),
      },
      prompt: "work",
      cleanup: () => mock.close(),
    };
  },
};

/** The kind's adapter as the daemon creates it: the kind's schema, then its `create`. */
function harness(k: AgentKind, fixture: Fixture): ConformanceHarness {
  return {
    make: async (s, dir, o) => {
      const f = await fixture(s, dir, o.stallMs);
      const a = k.schema.parse(f.agent) as Config["agent"];
      const agent = await k.create(a, { stateDir: dir, env: process.env, clock: systemClock, redactor: new Redactor(), stopSignal: k.stopSignal });
      return { agent, prompt: f.prompt, ...(f.cleanup ? { cleanup: f.cleanup } : {}) };
    },
  };
}

describe("the agent kinds", () => {
  it("every kind on the list has a conformance fixture", () => {
    expect(AGENT_KINDS.map((k) => k.kind).filter((k) => !FIXTURES[k])).toEqual([]);
  });
});

for (const k of AGENT_KINDS) {
  const fixture = FIXTURES[k.kind];
  if (fixture) agentConformance(k.kind, harness(k, fixture));
}
