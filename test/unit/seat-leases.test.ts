// The seat's leases (daemon/leases.ts) over the emulator board in this process, on fake time: a lease the
// seat took is held on the seat's timers — its heartbeat waits on them too — and hears the board's own
// word when the claim is gone; a stored lease is taken up again on the same run, its deadline as kept.
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/agents/kinds.js";
import type { Capabilities } from "../../src/board/index.js";
import { SeatLeases } from "../../src/daemon/leases.js";
import { LeaseLost } from "../../src/errors/board.js";
import { LeaseKeeper } from "../../src/lease/keeper.js";
import { silentLogger } from "../../src/log/logger.js";
import { ManualFactories } from "../helpers/fakes.js";
import { type TestBoard, testBoard } from "../helpers/in-process-board.js";

const NOW = 1_800_000_000_000;
const clock = { now: () => NOW };
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
const retry = { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 };
const boards: TestBoard[] = [];
afterAll(() => {
  for (const b of boards) b.cleanup();
});

async function seat() {
  const t = await testBoard();
  boards.push(t);
  const make = new ManualFactories();
  // The seat's own heartbeat loop; its waits, the polite stop and the deadline on timers fired by hand.
  const leases = new SeatLeases({
    config,
    retry,
    clock,
    log: silentLogger,
    make: { timer: (at, fire) => make.timer(at, fire), keeper: (d) => new LeaseKeeper(d) },
  });
  return { t, make, leases };
}

describe("the seat's leases", () => {
  it("a lease taken and held hears, at its next heartbeat, that the board gave the claim back", async () => {
    const { t, make, leases } = await seat();
    const id = await t.seed("a task");
    const held = await leases.take(t.board, id, { traceId: "trace-1", caps: CAPS, signal: new AbortController().signal });
    if (!held) throw new Error("not taken");
    const beats: number[] = [];
    held.on("heartbeat", ({ at }) => beats.push(at));
    held.hold({ note: () => "working" });
    const every = held.clock.heartbeatMs;
    await make.timerAt(NOW + every); // a claim just read beats first one interval on (its read was the first check)
    expect(beats).toEqual([]);
    expect(held.lost.aborted).toBe(false);
    await t.expire(); // Hermes reclaimed the run: the task is ready again
    const lost = new Promise<unknown>((resolve) => held.on("lost", resolve));
    make.fireUntil(NOW + every);
    expect(await lost).toBeInstanceOf(LeaseLost);
    expect(held.lost.aborted).toBe(true);
    expect((held.lost.reason as LeaseLost).currentStatus).toBe("ready");
    await held.stop();
    // The polite stop and the deadline were armed on the same timers, and cancelled by the stop.
    expect(make.timers.filter((x) => x.at === held.deadline)).toHaveLength(1);
    expect(make.timers.every((x) => x.cancelled)).toBe(true);
  });

  it("a stored lease is taken up on its run, with the deadline the journal kept; too little left is no run; a task given back is no longer ours", async () => {
    const { t, leases } = await seat();
    const id = await t.seed("a task");
    const taken = await leases.take(t.board, id, { traceId: "trace-2", caps: CAPS, signal: new AbortController().signal });
    if (!taken) throw new Error("not taken");
    const stored = { ...taken.lease, task: id, board: "b", traceId: "trace-2", ttlSeconds: 900, deadline: NOW + 600_000 };
    const resumed = leases.resume(t.board, stored);
    expect(resumed.lease.runId).toBe(taken.lease.runId);
    expect(resumed.deadline).toBe(NOW + 600_000);
    await resumed.fenced.heartbeat("still here"); // fenced on the same run: the board takes it
    expect(leases.minimumLeftMs(900)).toBeGreaterThanOrEqual(120_000);
    // Still this run's while the task runs on it; not once Hermes gave the claim back.
    expect(leases.stillOurs(await t.board.show(id), taken.lease.runId)).toBe(true);
    await t.expire();
    expect(leases.stillOurs(await t.board.show(id), taken.lease.runId)).toBe(false);
  });
});
