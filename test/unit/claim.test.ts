// How a lease is taken and sized (lease/take.ts), on a scripted board: claim first with the default TTL and
// `context` alongside; a task whose max runtime needs more is given back and claimed again with it;
// where a reclaim would count as a failure (capability), `context` is read before the one claim.
import { describe, expect, it } from "vitest";
import { type Capabilities, NotClaimable } from "../../src/board/index.js";
import { loadConfig } from "../../src/agents/kinds.js";
import { claimSettings } from "../../src/daemon/admission.js";
import { take } from "../../src/lease/take.js";
import { systemClock } from "../../src/time/clock.js";
import { FakeBoard } from "../helpers/fake-board.js";

const config = loadConfig({ env: {}, base: { boards: ["b"], assignee: "seat", agent: { kind: "command", command: ["true"] }, claim: { ttlSeconds: 900 } } });
const CAPS: Capabilities = {
  version: "0.20.0",
  blockKinds: [],
  attach: true,
  heartbeatExtends: false,
  reclaimCountsAsFailure: false,
  namedClaims: false,
  expectedStatus: [],
  review: true,
  reviewMetadata: false,
  authorizeExistingPr: false,
};

/** The in-memory board with one task whose `context` says `maxRuntime`; its claims are recorded (and may be lost). */
class ClaimBoard extends FakeBoard {
  lose = false;
  readonly id: string;
  constructor(maxRuntime: number | null) {
    super("b");
    this.id = this.seed("x", { assignee: "seat", ...(maxRuntime !== null ? { maxRuntime } : {}) });
    this.calls.length = 0;
  }
  override async claim(taskId: string, ttl: number) {
    if (this.lose) throw new NotClaimable({ verb: "claim", board: "b", taskId }, "running", "other:1");
    const r = await super.claim(taskId, ttl);
    this.calls.splice(this.calls.lastIndexOf("claim"), 1, `claim ${ttl}`);
    return r;
  }
}
const signal = new AbortController().signal;
const fencing = { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 }, clock: systemClock, author: "seat" };
const claimTask = (b: ClaimBoard, id: string, caps: Capabilities) => take(b, id, claimSettings(config), caps, fencing, signal);
/** What a taken lease says of its claim. */
const sized = async (b: ClaimBoard, caps: Capabilities) => {
  const held = await claimTask(b, b.id, caps);
  return held && { ttl: held.clock.timing.ttlSeconds, reclaimed: held.read.reclaimed, contextText: held.read.contextText, lease: held.lease, held };
};

describe("sizing a claim", () => {
  it("a task without a max runtime: one claim with the default TTL, context alongside, nothing given back", async () => {
    const b = new ClaimBoard(null);
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ ttl: 900, reclaimed: false, contextText: expect.stringContaining("Kanban task") });
    expect(b.calls.filter((c) => c !== "show").sort()).toEqual(["claim 900", "context"]);
  });

  it("a max runtime of 2 h: claimed, given back with a reason (its ownership read first), claimed again with 7200 + 60", async () => {
    const b = new ClaimBoard(7200);
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ ttl: 7260, reclaimed: true, lease: { ttlSeconds: 7260 } });
    expect(b.calls.filter((c) => c !== "show").slice(-2)).toEqual([
      "release hermes-kanban-bridge: claiming again with the task's max runtime (--ttl 7260)",
      "claim 7260",
    ]);
  });

  it("a max runtime shorter than the default: the claim is kept, the run is timed by the shorter TTL", async () => {
    const b = new ClaimBoard(120);
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ reclaimed: false, lease: { ttlSeconds: 900 }, ttl: 160 }); // 120 + safety min(60, ttl/4)
    expect(got?.held.deadline).toBe((got?.lease.claimedAt ?? 0) + (got?.held.clock.timing.runSeconds ?? 0) * 1000);
    expect(b.calls.filter((c) => c.startsWith("release"))).toEqual([]);
  });

  it("where a reclaim counts as a failure: context first, then the one claim with the right TTL", async () => {
    const b = new ClaimBoard(7200);
    const got = await sized(b, { ...CAPS, reclaimCountsAsFailure: true });
    expect(got).toMatchObject({ ttl: 7260, reclaimed: false });
    expect(b.calls.filter((c) => c !== "show")).toEqual(["context", "claim 7260"]);
  });

  it("a lost race is not ours: null, and nothing given back", async () => {
    const b = new ClaimBoard(7200);
    b.lose = true;
    expect(await claimTask(b, b.id, CAPS)).toBeNull();
    expect(b.calls.filter((c) => c.startsWith("release"))).toEqual([]);
  });
});
