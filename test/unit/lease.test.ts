// Which run a claim created, read from show --json: by the claim's own lock when the CLI runs on this
// host (exact after a reclaim and a new claim), else the open run; a known run id is never swapped.
import { taskEventOf } from "../../src/board/events.js";
import { describe, expect, it } from "vitest";
import type { TaskDetail } from "../../src/board/port.js";
import { type Lease, claimedRun, judge, leaseFrom, leaseOf } from "../../src/lease/lease.js";
import type { OutboxEntry } from "../../src/outbox/outbox.js";
import { detailOf } from "../helpers/fakes.js";

const base: Lease = { board: "b", taskId: "t_1", runId: null, lock: null, workspace: "/w", claimedAt: 0, expiresAt: 900_999, ttlSeconds: 900 };
type Run = TaskDetail["runs"][number];

/** Run 3 claimed by us (lock h:100), reclaimed, then run 4 claimed by another seat (lock h:200). */
function reclaimedAndTakenOver(): TaskDetail {
  const d = detailOf("t_1", { runId: 3 });
  const ended: Run = { ...(d.runs[0] as Run), status: "reclaimed", outcome: "reclaimed", endedAt: 5 };
  const theirs: Run = { ...(d.runs[0] as Run), id: 4 };
  return {
    ...d,
    runs: [ended, theirs],
    events: [
      taskEventOf({ kind: "claimed", payload: { run_id: 3, lock: "h:100", expires: 900 }, createdAt: 0, runId: 3 }),
      taskEventOf({ kind: "reclaimed", payload: {}, createdAt: 1, runId: 3 }),
      taskEventOf({ kind: "claimed", payload: { run_id: 4, lock: "h:200", expires: 950 }, createdAt: 2, runId: 4 }),
    ],
  };
}

describe("the run a claim created", () => {
  it("is found by the claim's own lock even when another seat holds the task now — and judged lost", () => {
    const d = reclaimedAndTakenOver();
    expect(claimedRun(d, "h:100")).toEqual({ runId: 3, lock: "h:100", expires: 900 });
    const lease = leaseFrom({ ...base, claimLock: "h:100" }, d);
    expect(lease.runId).toBe(3);
    expect(judge(lease, d, null)).toBeInstanceOf(Error);
  });

  it("without a matching lock (ssh, containers) is the open run", () => {
    const d = reclaimedAndTakenOver();
    expect(claimedRun(d, "elsewhere:1").runId).toBe(4);
    expect(claimedRun(d).runId).toBe(4);
  });

  it("is none when the task has no open run and no claim of ours", () => {
    const d = reclaimedAndTakenOver();
    const ready: TaskDetail = { ...d, task: { ...d.task, status: "ready" }, runs: d.runs.slice(0, 1), events: d.events.slice(0, 2) };
    expect(leaseFrom(base, ready).runId).toBeNull();
  });

  it("a lease that knows its run keeps it", () => {
    expect(leaseFrom({ ...base, runId: 3 }, reclaimedAndTakenOver()).runId).toBe(3);
  });
});

describe("the open run as a stand-in for an unmatched lock", () => {
  it("only while the claim can still be live: a late read (an outbox replay) takes no run for its own", () => {
    const d = reclaimedAndTakenOver();
    expect(leaseFrom(base, d, base.expiresAt - 1).runId).toBe(4);
    expect(leaseFrom(base, d, base.expiresAt).runId).toBeNull();
    expect(leaseFrom({ ...base, claimLock: "h:100" }, d, base.expiresAt + 1).runId).toBe(3);
  });

  it("an outbox entry keeps the claim's lock for its replay", () => {
    const entry = { board: "b", taskId: "t_1", runId: null, claimLock: "h:100", workspace: "/w" } as OutboxEntry;
    expect(leaseOf(entry)).toMatchObject({ runId: null, claimLock: "h:100", expiresAt: 0 });
  });
});

describe("a claim cut short by a stop", () => {
  it("is settled anyway: the read is not cut by the caller's aborted signal, so the claim is never stranded", async () => {
    const { testBoard } = await import("../helpers/in-process-board.js");
    const { acquire } = await import("../../src/lease/acquire.js");
    const t = await testBoard();
    const board = t.board;
    const id = await t.seed("t", { assignee: "a" });
    t.transport.faults = "claim:crash-after:1"; // the claim took effect, its answer did not arrive
    // The stop comes while the claim is out; the CLI adapter makes no call given an aborted signal after it.
    const stop = new AbortController();
    t.transport.onCall = (args) => {
      if (args[0] === "claim") stop.abort(new Error("stopping"));
    };
    const got = await acquire(board, id, 900, stop.signal);
    expect(got.lease.runId).toBeTypeOf("number");
    expect(got.claimFailure).toBeDefined(); // handed on, so the run closes (or runs) it
    expect(t.transport.verbs()).toEqual(["claim", "show"]);
    t.cleanup();
  });
});

describe("a claim whose answer was lost, settled by its lock", () => {
  /** A board whose claim took effect (or not) and lost its answer: show says run 1 is open under lock bh:42, claimed at `at`. */
  const lostAnswer = async (at: number, lockSince: number | undefined) => {
    const { acquire } = await import("../../src/lease/acquire.js");
    const { ClaimUncertain, Transient } = await import("../../src/errors/board.js");
    const cause = new Transient({ verb: "claim", board: "b", taskId: "t_1" }, "the connection was lost");
    const d = detailOf("t_1", { runId: 1 });
    const detail = { ...d, events: [taskEventOf({ kind: "claimed", payload: { run_id: 1, lock: "bh:42", expires: 9e9 }, createdAt: at, runId: 1 })] };
    const board = {
      slug: "b",
      claim: async () => {
        throw new ClaimUncertain({ taskId: "t_1", claimedAt: 0, ttlSeconds: 900, claimLock: "bh:42", lockSince, cause });
      },
      show: async () => detail,
    } as unknown as Parameters<typeof acquire>[0];
    return acquire(board, "t_1", 900);
  };

  it("is ours when its lock's claim came at or after the claiming process started (its host's time)", async () => {
    expect((await lostAnswer(1000, 1000)).lease.runId).toBe(1);
    expect((await lostAnswer(996, 1000)).lease.runId).toBe(1); // the host's clock stepped back a few seconds in between
    expect((await lostAnswer(1000, undefined)).lease.runId).toBe(1); // no time known (the emulator's own call server): the lock alone
  });

  it("is not ours when that lock's claim is older: another process of the board host had the same pid before the pids wrapped", async () => {
    await expect(lostAnswer(994, 1000)).rejects.toThrow(/the connection was lost/);
    await expect(lostAnswer(400, 1000)).rejects.toThrow(/the connection was lost/);
  });
});
