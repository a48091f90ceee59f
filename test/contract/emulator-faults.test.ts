// The emulator's fault switch (HERMES_EMULATOR_FAULTS): a hung CLI, transient failures (incl. the
// v0.14-style exit 0 + stderr), a close whose answer was lost, and inherited HERMES_* variables. The
// error cases a real board shows are in the Board contract; classification of real stderr is in
// test/unit/classify.test.ts.
import { afterEach, describe, expect, it } from "vitest";
import { Transient } from "../../src/board/index.js";
import { Emu } from "../helpers/emulator.js";
import { acquire } from "../../src/lease/acquire.js";
import { fencedOf } from "./board-contract.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("emulator faults: what a real board cannot be made to do on demand", () => {
  it("a hung CLI call times out as Transient naming verb and task", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("h", { assignee: "a-seat" });
    const board = emu.board({ timeoutMs: 1500, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, deadlineMs: 5000 }, envExtra: {} });
    const hung = emu.board({
      timeoutMs: 1500,
      retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, deadlineMs: 5000 },
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "show:hang" }, author: "x" },
    });
    const err = await hung.show(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Transient);
    expect((err as Error).message).toContain("no answer within the call timeout");
    expect((err as Error).message).toContain(`kanban --board bridge show ${id}`);
    expect((await board.show(id)).task.id).toBe(id);
  });

  it("transient failures, including exit 0 + stderr (v0.14), are retried until they pass", async () => {
    emu = await Emu.create();
    await emu.createTask("r", { assignee: "a-seat" });
    const retried: string[] = [];
    const b2 = emu.board({
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "list:transient:2,list:exit0err:1" }, author: "x" },
      onRetry: (verb) => retried.push(verb),
    });
    expect(await b2.listReady({ assignee: "a-seat" })).toHaveLength(1);
    expect(retried).toEqual(["list", "list", "list"]);
  });

  it("a complete whose answer was lost is recognised as already applied, not repeated", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("c", { assignee: "a-seat" });
    const board = emu.board({
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "complete:crash-after:1" }, author: "x" },
    });
    const { lease } = await acquire(board, id, 600);
    expect(await fencedOf(board, lease).complete({ summary: "once", metadata: { ok: true } })).toBe("already_applied");
    const doc = await emu.show(id);
    expect(doc.task.status).toBe("done");
    expect(doc.events.filter((e) => e.kind === "completed")).toHaveLength(1);
  });

  it("never passes inherited HERMES_KANBAN_* or delegated-child variables to the CLI", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("env", { assignee: "a-seat" });
    const board = emu.board({
      envExtra: { HERMES_KANBAN_DB: "/nonexistent/kanban.db", HERMES_DELEGATED_CHILD_CONTEXT: "1", HERMES_KANBAN_TASK: id, HERMES_KANBAN_RUN_ID: "999" },
    });
    const { lease } = await acquire(board, id, 600);
    await fencedOf(board, lease).heartbeat("fine");
    expect((await board.show(id)).task.status).toBe("running");
  });
});
