import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TaskRunRecord } from "../../src/board/port.js";
import { oneLineWithUsage, parseUsageLine, runCost, usageLine } from "../../src/board/card.js";
import { apiBeyondReport } from "../../src/run/close/close-text.js";
import { overrun, overrunText, priorSpend, spentUsage } from "../../src/run/work/budget.js";
import { UsageLedger, startOfDay } from "../../src/state/ledger.js";
import { taskEventOf } from "../../src/board/events.js";

const run = (id: number, o: Partial<TaskRunRecord>): TaskRunRecord => ({
  id,
  profile: null,
  status: "done",
  outcome: "completed",
  summary: null,
  error: null,
  metadata: null,
  startedAt: null,
  endedAt: null,
  ...o,
});

describe("usage lines", () => {
  it("round-trip: tokens, cost, model, seat; nothing reported reads as unmeasured, never free", () => {
    const line = usageLine({ tokens: { input: 1200, output: 300, cacheRead: 5 }, costUsd: 0.0123, turns: 4 }, "m-1", "box/seat-a");
    expect(line).toBe("usage: 1200 input / 300 output tokens (cache read 5, write 0), $0.0123, 4 turns (model m-1) · seat box/seat-a");
    expect(parseUsageLine(`cause: x\n${line}`)).toEqual({
      seat: "box/seat-a",
      agent: null,
      model: "m-1",
      tokensIn: 1200,
      tokensOut: 300,
      costUsd: 0.0123,
      measured: true,
      turns: 4,
      retries: [],
      costKnown: true,
    });
    // the agent kind and the retries before the close ride on the same line, read back whole
    const retried = usageLine({ turns: 1 }, undefined, "s", { agent: "claude-code", retries: ["crash", "api"] });
    expect(retried).toBe("usage: 1 turn · seat s · agent claude-code · retried 2 (crash, api)");
    expect(parseUsageLine(retried)).toMatchObject({ agent: "claude-code", retries: ["crash", "api"], turns: 1, measured: false });
    // an agent's own text that looks like the tail is no usage line unless it is the last line
    expect(parseUsageLine(`${retried}\nmore text`)).toBeNull();
    const none = usageLine(null, undefined, "s");
    expect(none).toBe("usage: unmeasured (the agent reported none) · seat s");
    expect(parseUsageLine(none)).toMatchObject({ measured: false, tokensIn: 0, seat: "s" });
    expect(parseUsageLine("no usage here")).toBeNull();
  });

  it("a run's cost: metadata.bridge of a complete wins over text; a run the bridge did not close is null", () => {
    const meta = { bridge: { seat: "a", agent: "codex", tokens: { input: 10, output: 5 }, cost_usd: 0.5, usage: "measured" } };
    expect(runCost(run(1, { metadata: meta }))).toEqual({
      seat: "a",
      agent: "codex",
      model: null,
      tokensIn: 10,
      tokensOut: 5,
      costUsd: 0.5,
      measured: true,
      turns: null,
      retries: [],
      costKnown: true,
      durationMs: null,
    });
    const retried = { bridge: { ...meta.bridge, turns: 3, retries: [{ cause: "crash" }, { cause: "forged" }, "x", { cause: "api" }] } };
    expect(runCost(run(4, { metadata: retried }))).toMatchObject({ turns: 3, retries: ["crash", "api"] });
    expect(runCost(run(2, { metadata: { bridge: { seat: "a", usage: "unmeasured" } } }))?.measured).toBe(false);
    expect(runCost(run(3, { summary: "manual close" }))).toBeNull();
  });
});

describe("the proxy's count of the API on the card (issue 50: the key's use on the books)", () => {
  const api = { requests: 6, bytesOut: 1, bytesIn: 2, tokens: { input: 900, output: 120, cacheRead: 0, cacheWrite: 0 }, unread: 0 };

  it("the usage line carries it before the seat; read back, a run cost at least what its proxy counted", () => {
    const line = usageLine({ tokens: { input: 400, output: 80 } }, "m", "box/s", { api: { requests: 6, input: 900, output: 120 } });
    expect(line).toBe("usage: 400 input / 80 output tokens (model m) · api 6 requests, 900 input / 120 output tokens · seat box/s");
    expect(parseUsageLine(line)).toMatchObject({ tokensIn: 900, tokensOut: 120, seat: "box/s", measured: true });
    // an agent that reported nothing, a proxy that counted: measured by the proxy's count
    expect(parseUsageLine(usageLine(null, undefined, "s", { api: { requests: 1, input: 50, output: 5 } }))).toMatchObject({
      tokensIn: 50,
      tokensOut: 5,
      measured: true,
    });
  });

  it("metadata.bridge.api raises a card's tokens; a forged count is no usage", () => {
    const meta = (t: unknown) => ({ bridge: { seat: "a", tokens: { input: 10, output: 5 }, usage: "measured", api: { requests: 2, tokens: t } } });
    expect(runCost(run(1, { metadata: meta({ input: 300, output: 2 }) }))).toMatchObject({ tokensIn: 300, tokensOut: 5, measured: true });
    expect(runCost(run(2, { metadata: meta({ input: -1e15, output: 0 }) }))).toMatchObject({ tokensIn: 0, measured: false });
  });

  it("the budgets count the larger figure; the card says when the proxy counted more than the agent reported", () => {
    expect(spentUsage({ tokens: { input: 400, output: 80 }, costUsd: 0.5 }, api)).toEqual({ tokens: { input: 900, output: 120 }, costUsd: 0.5 });
    expect(spentUsage(null, api)).toEqual({ tokens: { input: 900, output: 120 } });
    expect(spentUsage({ tokens: { input: 5000, output: 800 } }, api)).toEqual({ tokens: { input: 5000, output: 800 } });
    const day = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };
    expect(overrun({ task: { tokens: 1000 } }, day, day, spentUsage({ tokens: { input: 400, output: 80 } }, api))?.spent.tokens).toBe(1020);
    expect(apiBeyondReport({ tokens: { input: 400, output: 80 } }, api)).toMatch(
      /6 request\(s\), 900 input \/ 120 output tokens — more than the agent reported 400 input \/ 80 output tokens/,
    );
    expect(apiBeyondReport(null, api)).toMatch(/more than the agent reported none/);
    expect(apiBeyondReport({ tokens: { input: 900, output: 120 } }, api)).toBeNull();
  });
});

describe("budgets", () => {
  const prior = priorSpend(
    [
      run(1, { metadata: { bridge: { tokens: { input: 100, output: 20 }, cost_usd: 0.2 } } }),
      run(2, { outcome: "blocked", summary: "cause: c\nusage: unmeasured (the agent reported none)" }),
      run(3, { metadata: { bridge: { tokens: { input: 999, output: 999 } } } }), // the current run: not prior
    ],
    3,
  );

  it("sums the task's earlier runs from the cards, counting unmeasured runs", () => {
    expect(prior).toEqual({ tokens: 120, costUsd: 0.2, runs: 2, unmeasured: 1 });
  });

  it("the first budget crossed: the task's (earlier runs + this run), then the seat's day", () => {
    const day = { tokens: 0, costUsd: 0, runs: 0, unmeasured: 0 };
    expect(overrun({ task: { tokens: 200 } }, prior, day, { tokens: { input: 50, output: 10 } })).toBeNull();
    const o = overrun({ task: { tokens: 200 } }, prior, day, { tokens: { input: 70, output: 20 } });
    expect(o).toMatchObject({ scope: "task", spent: { tokens: 210 } });
    expect(o && overrunText(o)).toBe(
      "The run was stopped at this task's budget (agent.budget.task, summed over its runs): spent 210 tokens / $0.2000, budget 200 tokens. 1 earlier run(s) reported no usage: the real spend is higher.",
    );
    const seat = overrun({ seatDaily: { costUsd: 1 } }, prior, { ...day, costUsd: 0.9 }, { costUsd: 0.2 });
    expect(seat).toMatchObject({ scope: "seat-day", spent: { costUsd: 1.1 } });
  });
});

describe("usage ledger", () => {
  it("today and a window from one JSON line per run; entries older than 8 days are dropped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hkb-ledger-"));
    let now = Date.UTC(2026, 11, 1, 12);
    const clock = { now: () => now };
    const l = new UsageLedger(dir, clock);
    const e = { board: "b", task: "t", runId: 1, tokensIn: 10, tokensOut: 5, costUsd: 0.1, measured: true };
    l.add({ ...e, at: now - 9 * 86_400_000 });
    l.add({ ...e, at: now - 13 * 3600_000 }); // yesterday
    l.add({ ...e, at: now - 3600_000, measured: false });
    now += 1;
    const fresh = new UsageLedger(dir, clock);
    await fresh.load();
    expect(fresh.since(startOfDay(now))).toEqual({ tokens: 15, costUsd: 0.1, runs: 1, unmeasured: 1, noCost: 0 });
    expect(fresh.since(0).runs).toBe(2);
  });

  it("counts runs whose agent reported no cost, and the runs closed in each of the last 24 hours", () => {
    const dir = mkdtempSync(join(tmpdir(), "hkb-ledger-"));
    const now = Date.UTC(2026, 11, 1, 12, 30);
    const l = new UsageLedger(dir, { now: () => now });
    const e = { board: "b", task: "t", runId: 1, tokensIn: 10, tokensOut: 5, costUsd: 0, measured: true };
    l.add({ ...e, at: now - 60_000, costKnown: false, outcome: "done" }); // Codex: tokens, no cost
    l.add({ ...e, at: now - 2 * 3600_000, costUsd: 0.2, costKnown: true, outcome: "blocked" });
    l.add({ ...e, at: now - 2 * 3600_000 - 60_000, costUsd: 0.2, costKnown: true, outcome: "done" });
    l.add({ ...e, at: now - 25 * 3600_000, costKnown: true, outcome: "done" }); // before the strip
    expect(l.since(now - 3 * 3600_000)).toMatchObject({ runs: 3, noCost: 1, costUsd: 0.4 });
    const h = l.hours(now);
    expect(h.from).toBe("2026-11-30T13:00:00.000Z");
    expect([h.done[23], h.done[21], h.blocked[21]]).toEqual([1, 1, 1]);
    expect(h.done.reduce((a, b) => a + b, 0) + h.blocked.reduce((a, b) => a + b, 0)).toBe(3);
  });
});

describe("usage report from cards", () => {
  it("a handed-back run's usage is read from its reclaim reason; runs no bridge closed are counted apart", async () => {
    const { cardRuns, usageReport } = await import("../../src/observe/usage-report.js");
    const detail = {
      task: { id: "t_1" },
      runs: [run(1, { outcome: "reclaimed", error: "manual_reclaim", endedAt: 2000 }), run(2, { outcome: "completed", summary: "by hand", endedAt: 2100 })],
      events: [
        taskEventOf({
          kind: "reclaimed",
          runId: 1,
          createdAt: 2000,
          payload: { reason: "usage limit of seat a …\nusage: 70 input / 7 output tokens · seat a" },
        }),
        taskEventOf({ kind: "completed", runId: 2, createdAt: 2100, payload: null }),
      ],
    } as unknown as import("../../src/board/port.js").TaskDetail;
    const runs = cardRuns("b", detail);
    expect(runs[0]?.cost).toMatchObject({ seat: "a", tokensIn: 70, tokensOut: 7 });
    const r = usageReport(runs, { since: 1_000_000, by: "seat", boards: ["b"] });
    expect(r.rows).toEqual([{ key: "a", runs: 1, unmeasured: 0, reopens: 0, tokensIn: 70, tokensOut: 7, costUsd: 0, costKnownRuns: 0 }]);
    expect(r.otherRuns).toBe(1);
  });
});

describe("a reopen in the usage report", () => {
  it("is the run claimed after the board's `reopened` event, by the events' order — a run, its close and the reopen can share one second", async () => {
    const { cardRuns } = await import("../../src/observe/usage-report.js");
    const T = 1_800_000_000;
    const ev = (kind: string, runId: number | null, payload: Record<string, unknown> | null = null) => taskEventOf({ kind, runId, createdAt: T, payload });
    const detail = {
      task: { id: "t_1" },
      runs: [run(1, { outcome: "completed", startedAt: T, endedAt: T }), run(2, { outcome: "completed", startedAt: T, endedAt: T })],
      events: [
        ev("claimed", 1, { lock: "host:1" }),
        ev("completed", 1),
        ev("reopened", null, { reason: "again" }),
        ev("claimed", 2, { lock: "host:2" }),
        ev("completed", 2),
      ],
    } as unknown as import("../../src/board/port.js").TaskDetail;
    expect(cardRuns("b", detail).map((r) => r.reopen)).toEqual([false, true]);
  });
});

describe("a hand-back's one-line reason", () => {
  it("keeps its usage line whole at the end, however long the text before it; read back from there", () => {
    const usage = usageLine({ tokens: { input: 7, output: 3 } }, undefined, "box/seat-a", { agent: "command", retries: ["crash"] });
    const long = `usage limit of seat box/seat-a — ${"ü".repeat(400)}\nhanded back to the lane 'pool'\n${usage}`;
    const flat = oneLineWithUsage(long, 500);
    expect(Buffer.byteLength(flat)).toBeLessThanOrEqual(500);
    expect(flat).not.toContain("\n");
    expect(flat.endsWith(` ${usage}`)).toBe(true);
    expect(flat).toContain("…");
    expect(parseUsageLine(flat)).toMatchObject({ seat: "box/seat-a", agent: "command", tokensIn: 7, tokensOut: 3, retries: ["crash"] });
    // a text without a usage line is only flattened and cut
    expect(oneLineWithUsage("a\nb  c", 500)).toBe("a b c");
    // a usage line of the agent's in the middle of a one-line text is not the run's
    expect(parseUsageLine("usage: 1 input / 1 output tokens · seat x and more words")).toBeNull();
  });
});
