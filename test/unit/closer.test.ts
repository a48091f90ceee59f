// The closer on a lost lease: lost while the agent ran (an operator's reclaim or block) → nothing more
// is written to the task, the loss is recorded and alerted; lost at close with a result → the task is
// told the result was not applied and where it is kept.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LeaseLost } from "../../src/errors/board.js";
import { acquire } from "../../src/lease/acquire.js";
import { judge } from "../../src/lease/lease.js";
import { Closer } from "../../src/outbox/closer.js";
import { Outbox } from "../../src/outbox/outbox.js";
import type { AlertPayload } from "../../src/outbox/webhook.js";
import { Redactor } from "../../src/result/redact.js";
import { systemClock } from "../../src/time/clock.js";
import type { Board } from "../../src/board/index.js";
import { type TestBoard, testBoard } from "../helpers/in-process-board.js";

function closerOn(board: Board) {
  const alerts: AlertPayload[] = [];
  const outbox = new Outbox(mkdtempSync(join(tmpdir(), "hkb-closer-")));
  const closer = new Closer({
    board: () => board,
    outbox,
    alerts: { canDeliver: true, enqueue: (p) => alerts.push(p) },
    redactor: new Redactor([]),
    author: "seat",
    seat: "seat",
    now: () => new Date(),
    clock: systemClock,
    retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, deadlineMs: 1000 },
  });
  return { closer, outbox, alerts };
}

let t: TestBoard;
afterEach(() => t.cleanup());

describe("closer on a lost lease", () => {
  it("lost while the agent ran (a claim that ended, no stop by hand): recorded and alerted, nothing written to the task", async () => {
    t = await testBoard();
    const board = t.board;
    const id = await t.seed("t");
    const { lease } = await acquire(board, id, 600);
    await board.release(id, "operator takes it back");
    const { closer, outbox, alerts } = closerOn(board);
    const before = t.transport.calls.length;
    const entry = await closer.recordLost(
      lease,
      "tr",
      new LeaseLost({ verb: "heartbeat", board: "b", taskId: id }, { runId: lease.runId, currentStatus: "ready", currentRunId: null }),
    );
    expect(t.transport.calls.slice(before)).toEqual([]);
    expect(outbox.entries().find((e) => e.id === entry?.id)?.state).toBe("lease_lost");
    expect(alerts.map((a) => a.event)).toEqual(["lease_lost"]);
  });

  it("stopped from the board by hand (an operator's reclaim, read off the board): no outbox entry, no alert, nothing written", async () => {
    t = await testBoard();
    const board = t.board;
    const id = await t.seed("t");
    const { lease } = await acquire(board, id, 600);
    await board.release(id, "operator takes it back");
    const { closer, outbox, alerts } = closerOn(board);
    const lost = judge(lease, await board.show(id), null);
    expect(lost).toBeInstanceOf(LeaseLost);
    expect((lost as LeaseLost).stoppedBy).toEqual({ action: "reclaim", by: null });
    const before = t.transport.calls.length;
    expect(await closer.recordLost(lease, "tr", lost as LeaseLost)).toBeNull();
    expect(t.transport.calls.slice(before)).toEqual([]);
    expect(outbox.entries()).toEqual([]);
    expect(outbox.backlog()).toBe(0);
    expect(alerts).toEqual([]);
  });

  it("lost at close with a result (the claim ended, the gateway reclaimed it): the task says the result was not applied and where it is kept", async () => {
    t = await testBoard();
    const board = t.board;
    const id = await t.seed("t");
    const { lease } = await acquire(board, id, 600);
    await t.expire();
    const { closer, alerts } = closerOn(board);
    const res = await closer.close(closer.fenced(lease), { type: "complete", summary: "done", metadata: {} }, "tr");
    expect(res.result).toBe("lease_lost");
    const comments = (await board.show(id)).comments.filter((c) => c.author === "seat");
    expect(comments.map((c) => c.body).join("\n")).toMatch(/NOT applied.*outbox/s);
    expect(alerts.map((a) => a.event)).toEqual(["lease_lost"]);
  });

  it("stopped from the board by hand after the agent finished, before its close landed: dropped as asked — no backlog, no alert", async () => {
    for (const stop of ["reclaim", "block"] as const) {
      t = await testBoard();
      const board = t.board;
      const id = await t.seed("t");
      const { lease } = await acquire(board, id, 600);
      if (stop === "reclaim") await board.release(id, "run it again");
      else await t.emu.kanban(["block", id, "wait for me"]);
      const { closer, outbox, alerts } = closerOn(board);
      const res = await closer.close(closer.fenced(lease), { type: "complete", summary: "done", metadata: {} }, "tr");
      expect(res.result).toBe("lease_lost");
      expect(res.onBoard).toBe(stop);
      expect(outbox.backlog()).toBe(0);
      expect(outbox.entries().find((e) => e.id === res.entry.id)?.note).toMatch(new RegExp(`stopped from the board by hand \\(${stop}\\)`));
      expect(alerts).toEqual([]);
      const said = (await board.show(id)).comments.filter((c) => c.author === "seat").map((c) => c.body);
      expect(said.join("\n")).toMatch(/was not applied, as asked/);
      t.cleanup();
    }
    t = await testBoard();
  });
});
