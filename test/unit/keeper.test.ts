// LeaseKeeper with fake timers, seeing a scripted board through the run's fenced view: no real waits.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Board, Fence, TaskDetail } from "../../src/board/index.js";
import { LeaseLost, Transient } from "../../src/board/index.js";
import { BoardCorrupt } from "../../src/errors/board.js";
import { FencedBoard } from "../../src/lease/fenced.js";
import { LeaseKeeper, type LeaseKeeperDeps } from "../../src/lease/keeper.js";
import type { Lease } from "../../src/lease/lease.js";
import { systemClock } from "../../src/time/clock.js";
import { detailOf } from "../helpers/fakes.js";

const lease: Lease = { board: "b", taskId: "t_1", runId: 7, lock: null, workspace: "/w", claimedAt: 0, expiresAt: 0, ttlSeconds: 900 };

function detail(runId: number | null, status = "running"): TaskDetail {
  const d = detailOf("t_1", { runId: runId ?? 0 });
  return { ...d, task: { ...d.task, status: status as "running" }, runs: runId === null ? [] : d.runs };
}

/** The two calls the keeper makes, scripted and timed by the fake clock (the emulator cannot run on fake timers). */
class ScriptedHeartbeats {
  notes: (string | undefined)[] = [];
  openRun: number | null = 7;
  failHeartbeats = 0;
  /** Heartbeats fail as on a corrupt board (every call refused at the database's start). */
  corrupt = false;
  /** How long each heartbeat call takes (fake time). */
  callMs = 0;
  readonly began: number[] = [];
  async heartbeat(_f: Fence, o: { note?: string | undefined }): Promise<void> {
    this.began.push(Date.now());
    if (this.callMs > 0) await new Promise((r) => setTimeout(r, this.callMs));
    if (this.corrupt) throw new BoardCorrupt({ verb: "heartbeat", board: "b" }, { dbPath: null, backupPath: null, reason: "malformed" });
    if (this.failHeartbeats > 0) {
      this.failHeartbeats -= 1;
      throw new Transient({ verb: "heartbeat", board: "b" }, "locked");
    }
    this.notes.push(o.note);
  }
  async show(): Promise<TaskDetail> {
    return this.openRun === null ? detail(null, "ready") : detail(this.openRun);
  }
}

/** The keeper's view of `board`: fenced, with no retries of its own (the keeper re-checks). */
const keeper = (board: ScriptedHeartbeats, d: Omit<LeaseKeeperDeps, "fenced">) =>
  new LeaseKeeper({
    fenced: new FencedBoard(board as unknown as Board, lease, {
      retry: { retries: 0, minDelayMs: 0, maxDelayMs: 0, deadlineMs: 1000 },
      clock: systemClock,
      author: "a",
    }),
    ...d,
  });

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("LeaseKeeper", () => {
  it("heartbeats every interval with the latest new note", async () => {
    const board = new ScriptedHeartbeats();
    let note = "a";
    const k = keeper(board, { intervalMs: 1000, note: () => note, onLost: vi.fn(), onUnresolved: vi.fn() });
    k.start();
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(1000);
    note = "b";
    await vi.advanceTimersByTimeAsync(1000);
    expect(board.notes).toEqual(["a", undefined, "b"]);
    await k.stop();
    await k.stop();
  });

  it("firstBeatMs 0 (a run's keeper, started right after the claim's read): the first beat goes at once, then one every interval", async () => {
    const board = new ScriptedHeartbeats();
    const onDetail = vi.fn();
    const t0 = Date.now();
    const k = keeper(board, { intervalMs: 1000, firstBeatMs: 0, note: () => "claimed", onLost: vi.fn(), onUnresolved: vi.fn(), onDetail });
    k.start();
    await vi.advanceTimersByTimeAsync(0);
    // at once: the heartbeat, then the ownership read it is confirmed by
    expect(board.began.map((t) => t - t0)).toEqual([0]);
    expect(onDetail).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(board.began).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(board.began.map((t) => t - t0)).toEqual([0, 1000]);
    expect(board.notes).toEqual(["claimed", undefined]);
    await k.stop();
  });

  it("keeps a fixed rate: a slow CLI call does not push the next beats back; an overrun beat is followed at once", async () => {
    const board = new ScriptedHeartbeats();
    board.callMs = 300;
    const t0 = Date.now();
    const k = keeper(board, { intervalMs: 1000, note: () => undefined, onLost: vi.fn(), onUnresolved: vi.fn() });
    k.start();
    await vi.advanceTimersByTimeAsync(3500);
    expect(board.began.map((t) => t - t0)).toEqual([1000, 2000, 3000]);
    board.callMs = 1500;
    await vi.advanceTimersByTimeAsync(3000);
    // The beat at 4000 overruns to 5500: the next one starts at 5500 (not 5000, not 6500).
    expect(board.began.map((t) => t - t0)).toEqual([1000, 2000, 3000, 4000, 5500]);
    const stopped = k.stop(); // waits for the beat in flight (this fake ignores the abort signal)
    await vi.advanceTimersByTimeAsync(1500);
    await stopped;
  });

  it("reports a lost lease when another run owns the task", async () => {
    const board = new ScriptedHeartbeats();
    const onLost = vi.fn();
    const k = keeper(board, { intervalMs: 1000, note: () => undefined, onLost, onUnresolved: vi.fn() });
    k.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(onLost).not.toHaveBeenCalled();
    board.openRun = 8;
    await vi.advanceTimersByTimeAsync(1000);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(onLost.mock.calls[0]?.[0]).toBeInstanceOf(LeaseLost);
    await k.stop();
  });

  it("re-checks transient failures, then gives up as unresolved", async () => {
    const board = new ScriptedHeartbeats();
    board.failHeartbeats = 1;
    const onUnresolved = vi.fn();
    const k = keeper(board, {
      intervalMs: 1000,
      recheckAttempts: 2,
      recheckDelayMs: 100,
      note: () => undefined,
      onLost: vi.fn(),
      onUnresolved,
    });
    k.start();
    await vi.advanceTimersByTimeAsync(1100);
    expect(board.notes).toHaveLength(1);
    board.failHeartbeats = 10;
    await vi.advanceTimersByTimeAsync(1000 + 300);
    expect(onUnresolved).toHaveBeenCalledTimes(1);
    await k.stop();
  });

  it("a corrupt board is no unresolved failure: the agent keeps working, each beat asks again, and the next answer is a plain beat", async () => {
    const board = new ScriptedHeartbeats();
    board.corrupt = true;
    const onUnresolved = vi.fn();
    const onFailure = vi.fn();
    const k = keeper(board, { intervalMs: 1000, recheckAttempts: 2, recheckDelayMs: 100, note: () => "n", onLost: vi.fn(), onUnresolved, onFailure });
    k.start();
    await vi.advanceTimersByTimeAsync(5000);
    expect(onUnresolved).not.toHaveBeenCalled();
    expect(onFailure).toHaveBeenCalledTimes(5);
    board.corrupt = false;
    await vi.advanceTimersByTimeAsync(1000);
    expect(board.notes).toEqual(["n"]);
    await k.stop();
  });

  it("checkNow: one read at once — a loss is reported like a heartbeat's (once), new comments are handed on, no heartbeat is sent", async () => {
    const board = new ScriptedHeartbeats();
    const onLost = vi.fn();
    const seen: number[] = [];
    const k = keeper(board, { intervalMs: 120_000, note: () => undefined, onLost, onUnresolved: vi.fn(), onDetail: (d) => seen.push(d.comments.length) });
    k.start();
    k.checkNow();
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toEqual([0]);
    board.openRun = null; // an operator's reclaim
    k.checkNow();
    k.checkNow(); // asked for while one runs: one more read after it, not a pile
    await vi.advanceTimersByTimeAsync(0);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(board.notes).toEqual([]);
    k.checkNow(); // after the loss: nothing more
    await vi.advanceTimersByTimeAsync(200_000);
    expect(onLost).toHaveBeenCalledTimes(1);
    expect(board.began).toEqual([]);
    await k.stop();
  });
});
