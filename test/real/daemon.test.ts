// The real-CLI slice of the daemon tests: the bridge against real Hermes (HERMES_BIN, e.g.
// "python3 /opt/hermes/hermes") with the fixture agent — claim → run → complete and block, a lease
// lost to `reclaim` (nothing lands on the lost run), a claim sized by the task's max runtime, NUL in agent output and
// an outcome FIFO, and two bridges racing on one board. Skipped
// without HERMES_BIN; `npm run test:real` runs it with the Board contract on the same CLI.
import { afterEach, describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { hasAllFields } from "../../src/result/template.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

const bin = process.env.HERMES_BIN;
const real = () => Emu.create("real", { command: splitCommand(bin ?? "") });

let board: Emu | undefined;
afterEach(() => {
  board?.cleanup();
  board = undefined;
});

describe.skipIf(!bin)("daemon on the real Hermes CLI", () => {
  it("claim → run → complete: the common result lands on the run, the workspace is Hermes's", async () => {
    board = await real();
    const id = await board.createTask("real complete", { assignee: SEAT, body: "MODE:complete" });
    const b = await runBridge(board);
    await b.daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.outcome).toBe("completed");
    expect(d.runs[0]?.metadata).toMatchObject({
      ok: true,
      status: "ok",
      items: 3,
      bridge: { seat: SEAT, agent: "command", run_id: d.runs[0]?.id, workspace: { mode: "board" } },
    });
    expect(b.reports[0]).toMatchObject({ decision: "complete", close: "applied" });
    expect(b.built.outbox.backlog()).toBe(0);
  });

  it("claim → run → block: the templated reason and the kind reach Hermes", async () => {
    board = await real();
    const id = await board.createTask("real block", { assignee: SEAT, body: "MODE:block" });
    await (await runBridge(board)).daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/^cause: spec undecided$/m);
  });

  it("a lease lost to `reclaim`: the agent is stopped, nothing lands on the lost run, the next run completes", async () => {
    board = await real();
    const id = await board.createTask("real reclaim", { assignee: SEAT, body: "MODE:slow" });
    const b = await runBridge(board);
    b.daemon.once("heartbeat", () => void board?.kanban(["reclaim", id]));
    await b.daemon.done;
    const d = await board.show(id);
    const first = d.runs[0];
    expect(first?.outcome).toBe("reclaimed");
    expect(d.events.filter((e) => e.kind === "completed" && e.run_id === first?.id)).toHaveLength(0);
    expect(b.reports.map((r) => r.close)).toEqual(["lease_lost", "applied"]);
    expect(d.task.status).toBe("done");
    expect(d.runs.at(-1)?.summary).toBe("second attempt");
    // The reclaimed run wrote nothing more: the task was someone else's (its events say why).
    expect(d.comments.filter((c) => c.author === SEAT)).toEqual([]);
  });

  it("a task's max runtime sizes its claim: given back and claimed again with max runtime + safety", async () => {
    board = await real();
    const id = await board.createTask("real sized", { assignee: SEAT, body: "MODE:complete", maxRuntime: "2h" });
    await (await runBridge(board)).daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("done");
    expect(d.events.filter((e) => e.kind === "claimed").map((e) => Number(e.payload?.expires) - Number(e.created_at))).toEqual([120, 7210]); // the test config: ttl 120, safety 10
    expect(d.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
  });

  it("hostile bytes and files: an agent printing NUL completes; an outcome FIFO is a protocol-violation block", async () => {
    board = await real();
    const nul = await board.createTask("real nul", { assignee: SEAT, body: "MODE:nul" });
    const fifo = await board.createTask("real fifo", { assignee: SEAT, body: "MODE:fifo" });
    const b = await runBridge(board);
    await b.daemon.done;
    const n = await board.show(nul);
    expect(n.task.status).toBe("done");
    expect(n.runs.at(-1)?.summary).toBe("done \\x00 with \\x1b]0;title\\x07 odd \ufffd bytes");
    const f = await board.show(fifo);
    expect(f.task.status).toBe("blocked");
    const reason = String(f.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/protocol violation/);
    expect(reason).toMatch(/is not a regular file \(a FIFO\)/);
    expect(b.built.outbox.open()).toEqual([]);
  });

  it("two bridges racing on 6 tasks claim and close each exactly once", async () => {
    board = await real();
    const ids: string[] = [];
    for (let i = 0; i < 6; i += 1) ids.push(await board.createTask(`race ${i}`, { assignee: SEAT, body: "MODE:complete" }));
    const a = await runBridge(board, { stateName: "a", base: { concurrency: 2 } });
    const b = await runBridge(board, { stateName: "b", base: { concurrency: 2 } });
    await Promise.all([a.daemon.done, b.daemon.done]);
    for (const id of ids) {
      const d = await board.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs).toHaveLength(1);
      expect(d.events.filter((e) => e.kind === "completed")).toHaveLength(1);
    }
    expect(a.reports.length + b.reports.length).toBe(6);
  });
});
