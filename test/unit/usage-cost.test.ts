// `hermes-bridge usage` never prints a cost the agents did not report: a seat whose runs report no cost (a command
// agent, a local model, Codex's tokens) reads "unknown", as `status`, `stats` and the fleet say — not `$0.0000`.
import { describe, expect, it } from "vitest";
import type { RunCost } from "../../src/board/card.js";
import { renderUsage } from "../../src/cli/usage.js";
import { type CardRun, usageReport } from "../../src/observe/usage-report.js";

const run = (id: number, seat: string, cost: Partial<RunCost>): CardRun => ({
  board: "b",
  task: `t_${id}`,
  run: { id, profile: null, status: "done", outcome: "completed", summary: null, error: null, metadata: null, startedAt: 1000, endedAt: 1010 },
  cost: { seat, agent: null, model: null, tokensIn: 0, tokensOut: 0, costUsd: 0, measured: false, costKnown: false, ...cost },
  distrust: null,
  reopen: false,
});

describe("usage: a cost nobody reported is unknown, never $0", () => {
  it("reads unknown for a seat with no cost, the sum where one was reported, and says which runs had none", () => {
    const r = usageReport(
      [
        run(1, "box/script", {}),
        run(2, "box/llm", { tokensIn: 100, tokensOut: 20, measured: true }),
        run(3, "box/claude", { tokensIn: 10, tokensOut: 5, measured: true, costUsd: 0.25, costKnown: true }),
      ],
      { since: 0, by: "seat", boards: ["b"] },
    );
    const lines = renderUsage(r, "text").split("\n");
    const cost = (key: string) =>
      lines
        .find((l) => l.startsWith(key))
        ?.trim()
        .split(/\s+/)
        .at(-1);
    expect(cost("box/script")).toBe("unknown");
    expect(cost("box/llm")).toBe("unknown");
    expect(cost("box/claude")).toBe("$0.2500");
    expect(cost("total")).toBe("$0.2500+");
    expect(lines).toContain("2 run(s) reported no cost: a + marks a sum without them (the real spend is higher).");
    expect(r.total.costKnownRuns).toBe(1);
  });
});
