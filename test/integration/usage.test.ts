// `hermes-bridge usage`: the report is read from the board's records, so it covers every seat; its
// totals equal the sum of the cards (metadata.bridge of completes, the usage line of other closes).
import { afterEach, describe, expect, it } from "vitest";
import { usageCommand } from "../../src/cli/usage.js";
import type { UsageReport } from "../../src/observe/usage-report.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";
import { OpenAiMock, call, finish, usage } from "../helpers/openai-mock.js";

let emu: Emu;
let llm: OpenAiMock | undefined;
afterEach(async () => {
  emu?.cleanup();
  await llm?.close();
  llm = undefined;
});

const done = (n: number) => [
  { chunks: [call(0, `w${n}`, "write_file", JSON.stringify({ path: `f${n}.txt`, content: "x" })), finish("tool_calls"), usage(100, 20)] },
  {
    chunks: [
      call(0, `c${n}`, "kanban_complete", JSON.stringify({ summary: `task ${n}`, result: { ok: true, status: "ok" } })),
      finish("tool_calls"),
      usage(50 * n, 10),
    ],
  },
];

describe("usage report", () => {
  it("by seat, task and day from the cards of three seats; totals equal the cards' sum", async () => {
    emu = await Emu.create();
    llm = await OpenAiMock.start([
      ...done(1),
      ...done(2),
      { loop: () => [call(0, "b", "write_file", '{"path":"b.txt","content":"x"}'), finish("tool_calls"), usage(300, 30)], until: () => false, max: 9 },
    ]);
    const llmAgent = (budget: Record<string, unknown> = {}) => ({ kind: "local-llm", baseUrl: llm?.baseUrl, model: "m", maxSteps: 9, budget });
    const t1 = await emu.createTask("one", { assignee: SEAT, priority: 3 });
    const t2 = await emu.createTask("two", { assignee: SEAT, priority: 2 });
    await (await runBridge(emu, { base: { seat: { name: "box-a/seat-a" }, agent: llmAgent(), concurrency: 1 } })).daemon.done;
    const t3 = await emu.createTask("three", { assignee: SEAT });
    await (await runBridge(emu, { stateName: "b", base: { seat: { name: "box-b/seat-b" }, agent: llmAgent({ task: { tokens: 500 } }) } })).daemon.done;
    const t4 = await emu.createTask("four", { assignee: SEAT, body: "MODE:complete" });
    await (await runBridge(emu, { stateName: "c", base: { seat: { name: "box-c/seat-c" }, agent: { kind: "command", command: [process.execPath, AGENT] } } }))
      .daemon.done;
    expect(await Promise.all([t1, t2, t4].map(async (t) => (await emu.show(t)).task.status))).toEqual(["done", "done", "done"]);
    expect((await emu.show(t3)).task.status).toBe("blocked");

    // The cards' sum, read independently: metadata.bridge of completes, the usage line of the block.
    let tokens = 0;
    let runs = 0;
    for (const t of [t1, t2, t3, t4])
      for (const r of (await emu.show(t)).runs) {
        runs += 1;
        const b = (r.metadata as { bridge?: { tokens?: { input: number; output: number } } } | null)?.bridge;
        if (b) tokens += (b.tokens?.input ?? 0) + (b.tokens?.output ?? 0);
        const line = /usage: (\d+) input \/ (\d+) output/.exec(r.summary ?? "");
        if (!b && line) tokens += Number(line[1]) + Number(line[2]);
      }
    expect(tokens).toBe(120 + 60 + 120 + 110 + 660); // t1, t2; t3 stopped at 2 × 330 > 500; t4 unmeasured

    const report = async (by: string, as: "json" | "csv" = "json") => {
      let out = "";
      const flags = { board: emu.slug, assignee: SEAT, hermes: emu.command.join(" "), "hermes-home": emu.home, "state-dir": `${emu.dir}/usage-state` };
      expect(
        await usageCommand({ by, since: "1h", json: as === "json", csv: as === "csv", flags }, { ...process.env, ...emu.extraEnv }, (s) => (out += s)),
      ).toBe(0);
      return out;
    };
    const bySeat = JSON.parse(await report("seat")) as UsageReport;
    expect(bySeat.total).toMatchObject({ runs, tokensIn: 100 + 50 + 100 + 100 + 600, tokensOut: 20 + 10 + 20 + 10 + 60, unmeasured: 1 });
    expect(bySeat.total.tokensIn + bySeat.total.tokensOut).toBe(tokens);
    expect(Object.fromEntries(bySeat.rows.map((r) => [r.key, r.tokensIn + r.tokensOut]))).toEqual({
      "box-a/seat-a": 410,
      "box-b/seat-b": 660,
      "box-c/seat-c": 0,
    });
    expect(bySeat.rows.find((r) => r.key === "box-c/seat-c")).toMatchObject({ runs: 1, unmeasured: 1 });
    const byTask = JSON.parse(await report("task")) as UsageReport;
    expect(byTask.rows.map((r) => r.key).sort()).toEqual([t1, t2, t3, t4].map((t) => `${emu.slug}/${t}`).sort());
    const csv = await report("day", "csv");
    expect(csv.split("\n")[0]).toBe("day,runs,unmeasured_runs,tokens_in,tokens_out,cost_usd,reopen_runs");
    expect(csv).toContain(`total,${runs},1,950,120,0`);
  });
});
