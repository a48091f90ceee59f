// How a lease is taken and sized (lease/take.ts), on the emulator board in this process: claim first with the default TTL and
// `context` alongside; a task whose max runtime needs more is given back and claimed again with it;
// where a reclaim would count as a failure (capability), `context` is read before the one claim.
import { afterAll, describe, expect, it } from "vitest";
import type { Capabilities } from "../../src/board/index.js";
import { loadConfig } from "../../src/agents/kinds.js";
import { claimSettings } from "../../src/daemon/leases.js";
import { take } from "../../src/lease/take.js";
import { systemClock } from "../../src/time/clock.js";
import { testBoard } from "../helpers/in-process-board.js";

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

/** An emulator board with one task whose max runtime is `maxRuntime`; the calls after its creation are recorded. */
async function claimBoard(maxRuntime: string | null) {
  const t = await testBoard();
  const id = await t.seed("x", maxRuntime !== null ? { maxRuntime } : {});
  return { ...t, id, from: t.transport.calls.length };
}
type ClaimBoard = Awaited<ReturnType<typeof claimBoard>>;
/** The calls made since the task was seeded, `show` left out: the verb and, for a claim, its TTL; for a reclaim, its reason. */
const made = (b: ClaimBoard) =>
  b.transport.calls
    .slice(b.from)
    .filter((c) => !c.startsWith("show"))
    .map((c) =>
      c
        .replace(/^claim --ttl=(\d+) .*$/, "claim $1")
        .replace(/^reclaim --reason=(.*) -- t_\w+$/, "release $1")
        .replace(/^context .*$/, "context"),
    );
const signal = new AbortController().signal;
const fencing = { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 }, clock: systemClock, author: "seat" };
// Taken, never held here: no timer is armed.
const seat = { fencing, hold: { clock: systemClock, timer: () => ({ cancel: () => undefined }) } };
const claimTask = (b: ClaimBoard, id: string, caps: Capabilities) => take(b.board, id, claimSettings(config), caps, seat, signal);
/** What a taken lease says of its claim. */
const sized = async (b: ClaimBoard, caps: Capabilities) => {
  const held = await claimTask(b, b.id, caps);
  return held && { ttl: held.clock.timing.ttlSeconds, reclaimed: held.read.reclaimed, contextText: held.read.contextText, lease: held.lease, held };
};
const boards: ClaimBoard[] = [];
const board = async (maxRuntime: string | null) => {
  const b = await claimBoard(maxRuntime);
  boards.push(b);
  return b;
};
afterAll(() => {
  for (const b of boards) b.cleanup();
});

describe("sizing a claim", () => {
  it("a task without a max runtime: one claim with the default TTL, context alongside, nothing given back", async () => {
    const b = await board(null);
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ ttl: 900, reclaimed: false, contextText: expect.stringContaining("Kanban task") });
    expect(made(b).sort()).toEqual(["claim 900", "context"]);
  });

  it("a max runtime of 2 h: claimed, given back with a reason (its ownership read first), claimed again with 7200 + 60", async () => {
    const b = await board("2h");
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ ttl: 7260, reclaimed: true, lease: { ttlSeconds: 7260 } });
    expect(made(b).slice(-2)).toEqual(["release hermes-kanban-bridge: claiming again with the task's max runtime (--ttl 7260)", "claim 7260"]);
  });

  it("a max runtime shorter than the default: the claim is kept, the run is timed by the shorter TTL", async () => {
    const b = await board("2m");
    const got = await sized(b, CAPS);
    expect(got).toMatchObject({ reclaimed: false, lease: { ttlSeconds: 900 }, ttl: 160 }); // 120 + safety min(60, ttl/4)
    expect(got?.held.deadline).toBe((got?.lease.claimedAt ?? 0) + (got?.held.clock.timing.runSeconds ?? 0) * 1000);
    expect(made(b).filter((c) => c.startsWith("release"))).toEqual([]);
  });

  it("where a reclaim counts as a failure: context first, then the one claim with the right TTL", async () => {
    const b = await board("2h");
    const got = await sized(b, { ...CAPS, reclaimCountsAsFailure: true });
    expect(got).toMatchObject({ ttl: 7260, reclaimed: false });
    expect(made(b)).toEqual(["context", "claim 7260"]);
  });

  it("a lost race is not ours: null, nothing given back, and nothing read (the one call is the claim)", async () => {
    const b = await board("2h");
    expect((await b.emu.kanban(["claim", b.id])).code).toBe(0); // another party's claim came first
    expect(await claimTask(b, b.id, CAPS)).toBeNull();
    expect(made(b).filter((c) => !/^-|--help/.test(c))).toEqual(["claim 900"]);
  });

  it("a task of another lane (its id from a forged watch line) is given back at once, naming why: not taken", async () => {
    for (const caps of [CAPS, { ...CAPS, reclaimCountsAsFailure: true }]) {
      const t = await testBoard();
      boards.push({ ...t, id: "", from: 0 });
      const nobody = await t.emu.createTask("nobody's");
      const other = await t.seed("another lane's", { assignee: "other-seat" });
      for (const id of [nobody, other]) {
        expect(await take(t.board, id, claimSettings(config), caps, seat, signal)).toBeNull();
        const d = await t.emu.show(id);
        expect(d.task.status).toBe("ready");
        expect(JSON.stringify(d.events.findLast((e) => e.kind === "reclaimed")?.payload)).toMatch(/not this seat's lane \(seat\)/);
      }
    }
  });

  it("context is read once the claim is ours, beside its show — never alongside the claim itself", async () => {
    const b = await board(null);
    let answered = false;
    const claim = b.board.claim.bind(b.board);
    b.board.claim = async (...a: Parameters<typeof claim>) => {
      const r = await claim(...a);
      answered = true;
      return r;
    };
    const whenRead: boolean[] = [];
    b.transport.onCall = (args) => {
      if (args[0] === "context") whenRead.push(answered);
    };
    const got = await sized(b, CAPS);
    expect(got?.contextText).toContain("Kanban task");
    expect(whenRead).toEqual([true]);
  });
});
