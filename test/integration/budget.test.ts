// Budgets (agent.budget) end to end: the local-LLM agent against a scripted model that reports usage.
// A run that crosses the task's budget is stopped and blocked naming the spend; the task's earlier runs
// count (read from its card); a seat over its daily budget claims nothing more.
import { afterEach, describe, expect, it } from "vitest";
import { hasAllFields } from "../../src/result/template.js";
import { runCost } from "../../src/board/card.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { OpenAiMock, type Reply, call, finish, usage } from "../helpers/openai-mock.js";

let emu: Emu;
let llm: OpenAiMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await llm?.close();
  llm = undefined;
});

/** A model that writes a file per step, each answer costing 100 input + 20 output tokens, forever. */
const busyModel = (): Reply => ({
  loop: (n) => [call(0, `c${n}`, "write_file", JSON.stringify({ path: `f${n}.txt`, content: "x" })), finish("tool_calls"), usage(100, 20)],
  until: () => false,
  max: 50,
});

const agentCfg = (baseUrl: string, budget: Record<string, unknown>) => ({
  agent: { kind: "local-llm", baseUrl, model: "mock-coder", maxSteps: 40, budget },
});
// The block's reason; a second same-kind block after an unblock is Hermes's loop breaker (triage) and carries it too.
const reasonOf = (doc: Awaited<ReturnType<Emu["show"]>>) =>
  String(doc.events.findLast((e) => e.kind === "blocked" || e.kind === "block_loop_detected")?.payload?.reason ?? "");

describe("budgets", () => {
  it("a run that crosses the task budget is stopped and blocked naming the spend; its next run counts it from the card", async () => {
    emu = await Emu.create();
    llm = await OpenAiMock.start([busyModel()]);
    const id = await emu.createTask("costly", { assignee: SEAT, body: "Write files" });
    const base = agentCfg(llm.baseUrl, { task: { tokens: 300 } });
    await (await runBridge(emu, { base })).daemon.done;
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("blocked");
    const reason = reasonOf(doc);
    expect(hasAllFields(reason)).toBe(true);
    // 3 answers × 120 tokens = 360 > 300: stopped after the third (a polite stop between steps)
    expect(reason).toContain("this task's budget (agent.budget.task, summed over its runs): spent 360 tokens, budget 300 tokens");
    expect(llm.requests.length).toBe(3);
    // the card records the spend (the usage line), so the report and the next run read it back
    expect(runCost({ metadata: null, summary: doc.runs.at(-1)?.summary ?? null, error: null })).toMatchObject({ tokensIn: 300, tokensOut: 60, seat: SEAT });

    // Unblocked without raising the budget: the next run reads the earlier spend from the card and does not
    // start the agent. A second block of the same kind after an unblock is Hermes's loop breaker: triage.
    expect((await emu.raw(["kanban", "--board", emu.slug, "unblock", id])).code).toBe(0);
    await (await runBridge(emu, { base })).daemon.done;
    const again = await emu.show(id);
    expect(again.task.status).toBe("triage");
    expect(reasonOf(again)).toContain("spent 360 tokens, budget 300 tokens");
    expect(llm.requests.length).toBe(3);
  });

  it("a raised budget lets the next run go on until the new budget", async () => {
    emu = await Emu.create();
    llm = await OpenAiMock.start([busyModel()]);
    const id = await emu.createTask("costly", { assignee: SEAT, body: "Write files" });
    await (await runBridge(emu, { base: agentCfg(llm.baseUrl, { task: { tokens: 300 } }) })).daemon.done;
    expect((await emu.show(id)).task.status).toBe("blocked");
    expect((await emu.raw(["kanban", "--board", emu.slug, "unblock", id])).code).toBe(0);
    await (await runBridge(emu, { base: agentCfg(llm.baseUrl, { task: { tokens: 550 } }) })).daemon.done;
    // 360 from the first run + 2 × 120 = 600 > 550: two more answers, then the stop (the session resumed)
    const doc = await emu.show(id);
    expect(reasonOf(doc)).toContain("spent 600 tokens, budget 550 tokens");
    expect(reasonOf(doc)).toMatch(/session: \S+ \(resumed\)/);
    expect(llm.requests.length).toBe(5);
  });

  it("a seat over its daily budget blocks the run that crossed it and claims nothing more today", async () => {
    emu = await Emu.create();
    llm = await OpenAiMock.start([busyModel()]);
    const first = await emu.createTask("first", { assignee: SEAT, body: "Write files", priority: 5 });
    const second = await emu.createTask("second", { assignee: SEAT, body: "Write files" });
    const b = await runBridge(emu, { base: { ...agentCfg(llm.baseUrl, { seatDaily: { tokens: 200 } }), concurrency: 1 } });
    await b.daemon.done;
    const doc = await emu.show(first);
    expect(doc.task.status).toBe("blocked");
    expect(reasonOf(doc)).toContain("this seat's daily budget (agent.budget.seatDaily): spent 240 tokens, budget 200 tokens");
    expect((await emu.show(second)).task.status).toBe("ready");
    expect(b.daemon.status().seat).toMatchObject({ budget: expect.stringContaining("daily budget spent") });
  });
});
