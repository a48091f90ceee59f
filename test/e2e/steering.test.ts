// An operator's comment on a running task reaches the real Claude Code and Codex CLIs and the local-LLM
// loop mid-run (scripted model APIs on 127.0.0.1, the emulator as the board, the watch on, heartbeats
// at the default 120 s so only the watch can carry it): it shows up in a model request exactly once,
// the seat's own comment never does, and the run then completes. Claude takes it as a user turn on its
// held-open stdin, Codex on the answer of its next task-tool call, the local loop as a user message.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunReport } from "../../src/run/task-run.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { AnthropicMock, requestText, ResponsesMock } from "../helpers/model-mocks.js";
import { call, finish, OpenAiMock } from "../helpers/openai-mock.js";
import type { Arrivals } from "../helpers/arrivals.js";
import { CLAUDE, CODEX } from "../helpers/agent-clis.js";

const NOTE = "NOTE-7f3a also update the changelog";
const OWN = "OWN-91c2 the seat's own comment";
const GOOD = { ok: true, status: "ok", items: 1, metrics: { created: 1 }, note: "followed the note", artifacts: [], error: null };

let emu: Emu | undefined;
let closeMock: (() => Promise<void>) | undefined;
afterEach(async () => {
  emu?.cleanup();
  emu = undefined;
  await closeMock?.();
  closeMock = undefined;
});

/** Requests the model got, in order, with their arrival times. */
interface Seen {
  texts: () => string[];
  times: () => number[];
  arrivals: Arrivals;
  /** Called once the seat offered the operator's note to the agent's input (taken or not). */
  delivered?: () => void;
}

/** The task, a long-running bridge with `agent`; once the agent is working, the seat's comment, then the operator's. */
async function steer(agentIn: (dir: string) => Record<string, unknown>, seen: Seen): Promise<{ latencyMs: number; last: string }> {
  const e = await Emu.create();
  emu = e;
  const id = await e.createTask("steered", { assignee: SEAT, body: "Do the task; follow operator notes." });
  const b = await runBridge(e, {
    once: false,
    base: { agent: agentIn(e.dir), claim: {}, heartbeat: {}, discovery: { watch: true, sweepSeconds: 3600, debounceMs: 20 } },
  });
  try {
    const closed = new Promise<RunReport>((r) => b.daemon.on("run:closed", (rep: RunReport) => rep.taskId === id && r(rep)));
    await seen.arrivals.arrived(2);
    expect((await e.kanban(["comment", id, OWN, "--author", SEAT])).code).toBe(0);
    const t0 = Date.now();
    const handed = b.monitor.next("run:notes-offered", (n) => n.taskId === id, { ms: 60_000 });
    expect((await e.kanban(["comment", id, NOTE])).code).toBe(0);
    void handed.then(
      () => seen.delivered?.(),
      () => undefined,
    );
    const report = await closed;
    expect(report.close).toBe("applied");
    expect((await e.show(id)).task.status).toBe("done");
    const texts = seen.texts();
    const first = texts.findIndex((t) => t.includes("NOTE-7f3a"));
    expect(first, "the note reached a model request").toBeGreaterThan(0);
    expect(texts.some((t) => t.includes("OWN-91c2"))).toBe(false);
    const last = texts.at(-1) ?? "";
    // Exactly once: the conversation carries the note one time.
    expect(last.split("NOTE-7f3a").length - 1).toBe(1);
    expect(b.daemon.status().runs).toEqual([]);
    return { latencyMs: (seen.times()[first] ?? 0) - t0, last };
  } finally {
    await b.daemon.stop();
    await b.daemon.done.catch(() => undefined);
  }
}

const working = (tool: string) => ({
  loop: [{ tool, input: { note: "working" } }],
  until: (body: Record<string, unknown>) => requestText(body).includes("NOTE-7f3a"),
  delayMs: 250,
  max: 120,
});

describe("operator notes reach a running agent", () => {
  it("real Claude Code: as a user turn on its held-open stdin", async () => {
    const mock = await new AnthropicMock([
      { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "starting" } }] },
      working("mcp__task__kanban_heartbeat"),
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Followed the note.", result: GOOD } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    closeMock = () => mock.close();
    const agent = (dir: string) => ({
      kind: "claude-code",
      command: [CLAUDE],
      maxTurns: 200,
      configDir: join(dir, "claude"),
      killGraceSeconds: 2,
      env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "2", ANTHROPIC_API_KEY: "sk-ant-mock" },
    });
    const r = await steer(agent, { texts: () => mock.mainBodies.map(requestText), times: () => mock.mainTimes, arrivals: mock.arrivals });
    expect(r.last).toMatch(/\[note c1\] Comment from board user @/);
  }, 120_000);

  it("real Claude Code at its turn cap: a note sent as the run reaches --max-turns still reaches the model (2.1.205+)", async () => {
    // the answer to its last turn waits for the note's delivery: the note is queued while the turn cap is reached
    let delivered = () => {};
    const noteIn = new Promise<void>((r) => {
      delivered = r;
    });
    const mock = await new AnthropicMock([
      { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "starting" } }] },
      { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "working" } }], hold: noteIn },
      working("mcp__task__kanban_heartbeat"),
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Followed the note.", result: GOOD } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    closeMock = () => mock.close();
    const agent = (dir: string) => ({
      kind: "claude-code",
      command: [CLAUDE],
      maxTurns: 2,
      configDir: join(dir, "claude"),
      killGraceSeconds: 2,
      env: { ANTHROPIC_BASE_URL: mock.baseUrl, CLAUDE_CODE_MAX_RETRIES: "2", ANTHROPIC_API_KEY: "sk-ant-mock" },
    });
    const seen = { texts: () => mock.mainBodies.map(requestText), times: () => mock.mainTimes, arrivals: mock.arrivals, delivered: () => delivered() };
    const r = await steer(agent, seen);
    expect(r.last).toMatch(/\[note c1\] Comment from board user @/);
  }, 120_000);

  it("real Codex: on the answer of its next task-tool call", async () => {
    const mock = await new ResponsesMock([
      { blocks: [{ tool: "mcp__task__kanban_heartbeat", input: { note: "starting" } }] },
      working("mcp__task__kanban_heartbeat"),
      { blocks: [{ tool: "mcp__task__kanban_complete", input: { summary: "Followed the note.", result: GOOD } }] },
      { blocks: [{ text: "Done." }] },
    ]).start();
    closeMock = () => mock.close();
    const agent = (dir: string) => ({
      kind: "codex",
      command: [CODEX],
      model: "mock-model",
      home: join(dir, "codex"),
      killGraceSeconds: 2,
      config: ['model_provider="mock"', `model_providers.mock={name="mock",base_url="${mock.baseUrl}",wire_api="responses"}`],
      env: { OPENAI_API_KEY: "sk-mock" },
    });
    const r = await steer(agent, { texts: () => mock.mainBodies.map(requestText), times: () => mock.mainTimes, arrivals: mock.arrivals });
    expect(r.last).toMatch(/function_call_output.*\[note c1\]/);
  }, 120_000);

  it("the local-LLM loop: as a user message before its next request", async () => {
    const until = (body: Record<string, unknown>) => requestText(body).includes("NOTE-7f3a");
    const mock = await OpenAiMock.start([
      { chunks: [call(0, "c0", "kanban_heartbeat", '{"note":"starting"}'), finish("tool_calls")] },
      { loop: (n) => [call(0, `w${n}`, "kanban_heartbeat", '{"note":"working"}'), finish("tool_calls")], until, delayMs: 250, max: 120 },
      { chunks: [call(0, "c9", "kanban_complete", JSON.stringify({ summary: "Followed the note.", result: GOOD })), finish("tool_calls")] },
    ]);
    closeMock = () => mock.close();
    const agent = () => ({ kind: "local-llm", baseUrl: mock.baseUrl, model: "mock-coder", maxSteps: 200 });
    const r = await steer(agent, { texts: () => mock.requests.map(requestText), times: () => mock.times, arrivals: mock.arrivals });
    expect(r.last).toMatch(/"role":"user","content":"\[note c1\] Comment from board user @/);
  }, 120_000);
});
