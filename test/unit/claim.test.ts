// How a claim is sized (daemon/claim.ts), on a scripted board: claim first with the default TTL and
// `context` alongside; a task whose max runtime needs more is given back and claimed again with it;
// where a reclaim would count as a failure (capability), `context` is read before the one claim.
import { describe, expect, it } from "vitest";
import { type Board, type Capabilities, NotClaimable } from "../../src/board/index.js";
import { loadConfig } from "../../src/config/load.js";
import { claimTask } from "../../src/daemon/claim.js";
import { FakeBoard, detailOf } from "../helpers/fakes.js";

const config = loadConfig({ env: {}, base: { boards: ["b"], assignee: "seat", agent: { kind: "command", command: ["true"] }, claim: { ttlSeconds: 900 } } });
const CAPS: Capabilities = { version: "0.20.0", blockKinds: [], attach: true, heartbeatExtends: false, reclaimCountsAsFailure: false };

/** A board whose `context` says `maxRuntime` and whose claims are recorded (and may be lost). */
class ClaimBoard extends FakeBoard {
  lose = false;
  constructor(private readonly maxRuntime: number | null) {
    super(detailOf("t_1"));
  }
  override async context() {
    this.calls.push("context");
    return `# Kanban task t_1: x\n${this.maxRuntime === null ? "" : `Max runtime: ${this.maxRuntime}s\n`}`;
  }
  override async claim(taskId: string, ttl: number): ReturnType<Board["claim"]> {
    this.calls.push(`claim ${ttl}`);
    if (this.lose) throw new NotClaimable({ verb: "claim", board: "b", taskId }, "running", "other:1");
    return {
      lease: { board: "b", taskId, runId: 1, lock: "h:1", workspace: "/w", claimedAt: 1000, expiresAt: 1000 + ttl * 1000, ttlSeconds: ttl },
      detail: this.detail,
    };
  }
}
const signal = new AbortController().signal;

describe("sizing a claim", () => {
  it("a task without a max runtime: one claim with the default TTL, context alongside, nothing given back", async () => {
    const b = new ClaimBoard(null);
    const got = await claimTask(b, "t_1", config, CAPS, signal);
    expect(got).toMatchObject({ ttl: 900, reclaimed: false, contextText: expect.stringContaining("Kanban task") });
    expect(b.calls.sort()).toEqual(["claim 900", "context"]);
  });

  it("a max runtime of 2 h: claimed, given back with a reason, claimed again with 7200 + 60", async () => {
    const b = new ClaimBoard(7200);
    const got = await claimTask(b, "t_1", config, CAPS, signal);
    expect(got).toMatchObject({ ttl: 7260, reclaimed: true, lease: { ttlSeconds: 7260 } });
    expect(b.calls.slice(-2)).toEqual(["release hermes-kanban-bridge: claiming again with the task's max runtime (--ttl 7260)", "claim 7260"]);
  });

  it("a max runtime shorter than the default: the claim is kept, the run is timed by the shorter TTL", async () => {
    const b = new ClaimBoard(120);
    const got = await claimTask(b, "t_1", config, CAPS, signal);
    expect(got).toMatchObject({ reclaimed: false, lease: { ttlSeconds: 900 }, ttl: 160 }); // 120 + safety min(60, ttl/4)
    expect(got?.deadline).toBe(1000 + (got?.timing.runSeconds ?? 0) * 1000);
    expect(b.calls.filter((c) => c.startsWith("release"))).toEqual([]);
  });

  it("where a reclaim counts as a failure: context first, then the one claim with the right TTL", async () => {
    const b = new ClaimBoard(7200);
    const got = await claimTask(b, "t_1", config, { ...CAPS, reclaimCountsAsFailure: true }, signal);
    expect(got).toMatchObject({ ttl: 7260, reclaimed: false });
    expect(b.calls).toEqual(["context", "claim 7260"]);
  });

  it("a lost race is not ours: null, and nothing given back", async () => {
    const b = new ClaimBoard(7200);
    b.lose = true;
    expect(await claimTask(b, "t_1", config, CAPS, signal)).toBeNull();
    expect(b.calls.filter((c) => c.startsWith("release"))).toEqual([]);
  });
});
