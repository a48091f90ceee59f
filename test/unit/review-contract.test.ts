// Pure rules of the 0.21 features: the review policy, the changes a reviewer requested, the start-time
// check of close.review against the CLIs, and what a completion contract asks of a run.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import type { Capabilities, TaskDetail } from "../../src/board/port.js";
import { reviewSupported } from "../../src/daemon/capability-checks.js";
import { ConfigError } from "../../src/errors/index.js";
import { contractNeeds, contractRefusal } from "../../src/result/contract.js";
import type { AgentResult } from "../../src/result/common.js";
import { changesRequested, handOff } from "../../src/run/review.js";
import { taskEventOf } from "../../src/board/events.js";

const result = { ok: true, status: "ok", items: 1, metrics: {}, note: "", artifacts: [], error: null } as AgentResult;
const done = { type: "complete" as const, summary: "s", result };
const asked = { ...done, review: { reviewer: "alice" } };

describe("close.review", () => {
  it("when-asked follows the agent; always hands every success over; never completes", () => {
    expect(handOff(done, { mode: "when-asked", reviewer: "qa" })).toBeUndefined();
    expect(handOff(asked, { mode: "when-asked", reviewer: "qa" })).toEqual({ reviewer: "alice" });
    expect(handOff({ ...done, review: { reviewer: null } }, { mode: "when-asked", reviewer: "qa" })).toEqual({ reviewer: "qa" });
    expect(handOff(done, { mode: "always" })).toEqual({ reviewer: null });
    expect(handOff(asked, { mode: "never", reviewer: "qa" })).toBeUndefined();
  });

  it("is refused at start where a board's CLI has no request-review, naming the key and the board", () => {
    const c = (close: Record<string, unknown>) =>
      loadConfig({ env: {}, base: { boards: ["b"], assignee: "seat", agent: { kind: "command", command: ["true"] }, close } });
    const caps = (review: boolean) => new Map([["b", { version: "0.19.0", review } as Capabilities]]);
    expect(() => reviewSupported(c({ review: "always" }), caps(false))).toThrow(ConfigError);
    expect(() => reviewSupported(c({ review: "always" }), caps(false))).toThrow(/close\.review: needs `hermes kanban request-review`.*b \(Hermes 0\.19\.0\)/);
    expect(() => reviewSupported(c({ reviewer: "qa" }), caps(false))).toThrow(/close\.reviewer/);
    expect(() => reviewSupported(c({}), caps(false))).not.toThrow();
    expect(() => reviewSupported(c({ review: "always" }), caps(true))).not.toThrow();
  });

  it("the changes requested since the last hand-off, not older ones", () => {
    const detail = (comments: [number, string][], reviewAt: number) =>
      ({
        comments: comments.map(([createdAt, body]) => ({ author: "rev", body, createdAt })),
        events: [taskEventOf({ kind: "review_requested", payload: null, createdAt: reviewAt, runId: 1 })],
      }) as unknown as TaskDetail;
    expect(
      changesRequested(
        detail(
          [
            [5, "CHANGES REQUESTED: old"],
            [20, "CHANGES REQUESTED: new one"],
          ],
          10,
        ),
      ),
    ).toBe("new one");
    expect(changesRequested(detail([[5, "CHANGES REQUESTED: old"]], 10))).toBeNull();
    expect(changesRequested(detail([[20, "looks good"]], 10))).toBeNull();
  });
});

describe("completion contracts", () => {
  it("say what a contract needs; local-only and none need nothing", () => {
    expect(contractNeeds(null)).toBeNull();
    expect(contractNeeds("local-only")).toBeNull();
    expect(contractNeeds("acme/widgets")).toContain('"published_pr"');
    expect(contractNeeds("https://github.com/acme/widgets/pull/7")).toContain('"published_pr": "https://github.com/acme/widgets/pull/7"');
    expect(contractNeeds("evidence-required")).toContain("evidence");
  });

  it("explain a refused complete with the board's own words", () => {
    const why = contractRefusal({ completionContract: "acme/widgets", lastFailure: "PR acceptance missing: Supply metadata.published_pr" });
    expect(why).toContain("completion contract is acme/widgets");
    expect(why).toContain("The board says: PR acceptance missing");
    expect(contractRefusal({ completionContract: null, lastFailure: "x" })).toBeNull();
  });
});
