// When a held lease's first heartbeat goes (issue 54): a claim just read beats one interval on (its `show`
// was the run's first ownership check: a short task costs no heartbeat and no second `show`); a lease held
// without a read since its claim beats, and is checked, at once; a board event that came while the run was
// still preparing is checked as soon as the lease is held.
import { afterAll, describe, expect, it } from "vitest";
import { timingFor } from "../../src/config/timing.js";
import { LeaseClock } from "../../src/lease/clock.js";
import { HeldLease } from "../../src/lease/held.js";
import type { Keeper, LeaseKeeperDeps } from "../../src/lease/keeper.js";
import { leaseFrom, leaseOfReceipt } from "../../src/lease/lease.js";
import { type TestBoard, testBoard } from "../helpers/in-process-board.js";

const boards: TestBoard[] = [];
afterAll(() => {
  for (const b of boards) b.cleanup();
});

const clock = { now: () => Date.now() };
const fencing = { retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 }, clock, author: "seat" };
const timing = timingFor({ claim: { ttlSeconds: 900, maxTtlSeconds: 14400 }, heartbeat: {} }, 900);

/** A keeper that records how it was made and what it was asked. */
function recording() {
  const seen: { deps: LeaseKeeperDeps | null; started: number; checks: number } = { deps: null, started: 0, checks: 0 };
  const make = (d: LeaseKeeperDeps): Keeper => {
    seen.deps = d;
    return {
      start: () => {
        seen.started += 1;
      },
      stop: async () => undefined,
      checkNow: () => {
        seen.checks += 1;
      },
    };
  };
  return { seen, make };
}

const deps = (make: (d: LeaseKeeperDeps) => Keeper) => ({ clock, timer: () => ({ cancel: () => undefined }), keeper: make });

async function claimed(read: boolean, make: (d: LeaseKeeperDeps) => Keeper) {
  const t = await testBoard();
  boards.push(t);
  const id = await t.seed("a task");
  const receipt = await t.board.claim(id, 900);
  const detail = read ? await t.board.show(id) : null;
  const base = leaseOfReceipt("b", receipt);
  const lease = detail ? leaseFrom(base, detail) : base;
  const seat = { fencing, hold: deps(make) };
  const held = HeldLease.of(t.board, { lease, detail }, seat, new LeaseClock(timing, Date.now() + 900_000), { contextText: null, reclaimed: false });
  return { held, calls: () => t.transport.calls.length };
}

describe("HeldLease: the first heartbeat", () => {
  it("a claim just read: one interval on, no check at once", async () => {
    const { seen, make } = recording();
    const { held } = await claimed(true, make);
    held.hold({ note: () => undefined });
    expect(seen.started).toBe(1);
    expect(seen.deps?.firstBeatMs).toBeUndefined();
    expect(seen.checks).toBe(0);
    await held.stop();
  });

  it("a claim whose read failed: at once", async () => {
    const { seen, make } = recording();
    const { held } = await claimed(false, make);
    held.hold({ note: () => undefined });
    expect(seen.deps?.firstBeatMs).toBe(0);
    await held.stop();
  });

  it("a board event before the lease is held: checked as soon as it is, once", async () => {
    const { seen, make } = recording();
    const { held } = await claimed(true, make);
    held.checkNow();
    held.checkNow();
    expect(seen.checks).toBe(0);
    held.hold({ note: () => undefined });
    expect(seen.checks).toBe(1);
    await held.stop();
  });
});
