// The local-LLM agent end to end: the bridge's own loop against a scripted OpenAI-compatible server.
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { OpenAiMock, type Reply, call, finish, text, usage } from "../helpers/openai-mock.js";

let emu: Emu;
let llm: OpenAiMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await llm?.close();
  llm = undefined;
});

async function runWith(replies: Reply[], base: Record<string, unknown> = {}) {
  emu = await Emu.create();
  llm = await OpenAiMock.start(replies);
  const id = await emu.createTask("llm task", { assignee: SEAT, body: "Write hello.txt" });
  const b = await runBridge(emu, { base: { agent: { kind: "local-llm", baseUrl: llm.baseUrl, model: "mock-coder", maxSteps: 6 }, ...base } });
  await b.daemon.done;
  return { id, doc: await emu.show(id), reports: b.reports };
}

const reasonOf = (doc: Awaited<ReturnType<Emu["show"]>>) => String(doc.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

describe("local-LLM agent", () => {
  it("multi-step tool use with split deltas (and an index-less server) ends in complete", async () => {
    const { doc } = await runWith([
      {
        chunks: [
          text("Starting."),
          call(0, "call_1", "kanban_heartbeat", '{"no'),
          call(0, undefined, undefined, 'te":"writing the file"}'),
          call(1, "call_2", "write_file", '{"path":"hello.txt",'),
          call(1, undefined, undefined, '"content":"hi\\n"}'),
          finish("tool_calls"),
          usage(100, 20),
        ],
      },
      {
        // Ollama-style: no index, and finish_reason "stop" although a tool was called
        chunks: [
          call(undefined, "c3", "kanban_complete", '{"summary":"wrote hello.txt","result":{"ok":true,"status":"ok","items":1}}'),
          finish("stop"),
          usage(150, 30),
        ],
      },
    ]);
    expect(doc.task.status).toBe("done");
    const m = doc.runs.at(-1)?.metadata as { items: number; changed_files: string[]; bridge: { agent: string; model: string } };
    expect(m.items).toBe(1);
    expect(m.changed_files).toEqual(["hello.txt"]);
    expect(m.bridge).toMatchObject({ agent: "local-llm", model: "mock-coder" });
    expect(doc.events.filter((e) => e.kind === "heartbeat").map((e) => e.payload?.note)).toContain("writing the file");
    const second = llm?.requests[1] as { messages: { role: string; tool_calls?: { function: { arguments: string } }[]; content?: string }[] };
    const assistant = second.messages.find((m) => m.role === "assistant");
    expect(assistant?.tool_calls?.map((t) => JSON.parse(t.function.arguments))).toEqual([{ note: "writing the file" }, { path: "hello.txt", content: "hi\n" }]);
    expect(second.messages.filter((m) => m.role === "tool").map((m) => m.content)).toEqual(["recorded", "wrote hello.txt (3 chars)"]);
  });

  it("a bad block template comes back as a tool error; the good one blocks", async () => {
    const { doc } = await runWith([
      {
        chunks: [
          call(0, "b1", "kanban_block", '{"cause":"spec undecided","what_happened":"two specs","options":["A","B"],"recommendation":"A"}'),
          finish("tool_calls"),
        ],
      },
      {
        chunks: [
          call(
            0,
            "b2",
            "kanban_block",
            '{"cause":"spec undecided","what_happened":"two specs","options":["A","B"],"recommendation":"A","next_action":"pick one"}',
          ),
          finish("tool_calls"),
        ],
      },
    ]);
    const r = reasonOf(doc);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/^cause: spec undecided$/m);
    const second = llm?.requests[1] as { messages: { role: string; content: string }[] } | undefined;
    const toolAnswer = second?.messages.findLast((m) => m.role === "tool");
    expect(toolAnswer?.content).toMatch(/^error: invalid kanban_block arguments: next_action/);
  });

  it.each([
    [{ status: 400, body: { error: { message: "registry.ollama.ai/library/tiny does not support tools" } } }, "environment", /does not support tool calling/],
    [
      {
        status: 400,
        body: { error: { code: 400, type: "exceed_context_size_error", message: "request (13392 tokens) exceeds the available context size (8192 tokens)" } },
      },
      "human decision needed",
      /exceeds the model's context/,
    ],
  ])("a server error is a clear block (%#)", async (reply, cause, what) => {
    const { doc } = await runWith([reply as Reply]);
    const r = reasonOf(doc);
    expect(r).toMatch(new RegExp(`^cause: ${cause}$`, "m"));
    expect(r).toMatch(what);
  });

  it("an overloaded server (HTTP 529) is retried after the backoff: the task completes, the card names the retry", async () => {
    emu = await Emu.create();
    llm = await OpenAiMock.start([
      { chunks: [call(0, "w", "write_file", '{"path":"a.txt","content":"x"}'), finish("tool_calls"), usage(100, 20)] },
      { status: 529, body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } },
      {
        chunks: [
          call(0, "c", "kanban_complete", '{"summary":"done after a retry","result":{"ok":true,"status":"ok","items":1}}'),
          finish("tool_calls"),
          usage(50, 10),
        ],
      },
    ]);
    const id = await emu.createTask("llm task", { assignee: SEAT, body: "Write a.txt" });
    const agent = { kind: "local-llm", baseUrl: llm.baseUrl, model: "mock-coder", maxSteps: 6, retryBackoffSeconds: 0.02 };
    const b = await runBridge(emu, { base: { agent } });
    await b.daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    const meta = doc.runs.at(-1)?.metadata as { bridge: { retries: { cause: string; detail: string }[]; tokens: { input: number } } } | undefined;
    const bridge = meta?.bridge;
    expect(bridge?.retries).toEqual([expect.objectContaining({ cause: "api", detail: expect.stringContaining("HTTP 529") })]);
    expect(bridge?.tokens.input).toBe(150); // both attempts
    const note = doc.events.filter((e) => e.kind === "heartbeat").map((e) => String(e.payload?.note ?? ""));
    expect(note.filter((n) => n.includes("retry 1 of 2 (api)"))).toHaveLength(1);
    // the retry continued the saved conversation: the write of the first attempt is in the third request
    const third = llm.requests[2] as { messages: { role: string }[] };
    expect(third.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("a server that goes away mid-run: the task goes back to the lane (never blocked), naming it; the seat pauses", async () => {
    const { doc, reports } = await runWith([{ reset: true }]);
    expect(doc.task.status).toBe("ready");
    expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
    expect(doc.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toMatch(/^environment: the agent of seat test-seat could not reach its API/);
    expect(doc.comments.at(-1)?.body).toMatch(/^cause: environment$/m);
    expect(doc.comments.at(-1)?.body).toMatch(/The agent could not reach its API: the model server at .* is not reachable/);
    expect(reports[0]?.unreachable).toMatch(/not reachable/);
  });

  it("an unreachable server at start pauses the seat: nothing is claimed", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("nobody home", { assignee: SEAT });
    const b = await runBridge(emu, { base: { agent: { kind: "local-llm", baseUrl: "http://127.0.0.1:9/v1", model: "m" } } });
    await b.daemon.done;
    expect((await emu.show(id)).task.status).toBe("ready");
    expect(b.daemon.status().seat.reason).toMatch(/unreachable/);
  });

  it("a hung stream is cut by the run deadline", async () => {
    const { doc } = await runWith([{ hangAfter: [text("thinking")] }], { claim: { ttlSeconds: 30, safetySeconds: 25 } });
    expect(reasonOf(doc)).toMatch(/did not finish before its deadline/);
  });
});
