// Typed errors from real CLI answers: argv order, bad metadata, vanished task, fenced write, hung
// CLI, transient faults (incl. v0.14-style exit 0 + stderr) and a close whose answer was lost.
import { afterEach, describe, expect, it } from "vitest";
import { BoardNotFound, Transient, UsageError } from "../../src/board/index.js";
import { classify } from "../../src/board/classify.js";
import { runProcess } from "../../src/process/runner.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("error classification against the emulator", () => {
  it("--board after the verb is a usage error naming the verb", async () => {
    emu = await Emu.create();
    const r = await runProcess({ argv: [...emu.command, "kanban", "list", "--board", "bridge", "--json"], env: emu.env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("hermes: error: unrecognized arguments: --board bridge");
    const err = classify(r, { verb: "list", board: "bridge" });
    expect(err).toBeInstanceOf(UsageError);
    expect(err?.message).toContain("kanban --board bridge list");
  });

  it("a bad --metadata is exit 2 → UsageError; the option-after-id block is exit 2 too", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("m", { assignee: "a-seat" });
    await emu.kanban(["claim", id]);
    const bad = await emu.kanban(["complete", "--summary=x", "--metadata={not json", "--", id]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^kanban: --metadata: /);
    const arr = await emu.kanban(["complete", "--metadata=[1,2]", "--", id]);
    expect(arr.stderr).toBe("kanban: --metadata: must be a JSON object\n");
    const trap = await emu.kanban(["block", id, "--kind", "needs_input", "--", "reason"]);
    expect(trap.code).toBe(2);
    expect(trap.stderr).toContain("unrecognized arguments: reason");
  });

  it("a missing board is BoardNotFound", async () => {
    emu = await Emu.create();
    const board = emu.board({ slug: "nope" });
    await expect(board.listReady({ assignee: "x" })).rejects.toBeInstanceOf(BoardNotFound);
  });

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
    const board = emu.board({
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "list:transient:2,list:exit0err:1" }, author: "x" },
    });
    const retried: string[] = [];
    const b2 = emu.board({ ...{ env: (board as unknown as { o: { env: never } }).o.env }, onRetry: (verb) => retried.push(verb) });
    expect(await b2.listReady({ assignee: "a-seat" })).toHaveLength(1);
    expect(retried).toEqual(["list", "list", "list"]);
  });

  it("a complete whose answer was lost is recognised as already applied, not repeated", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("c", { assignee: "a-seat" });
    const board = emu.board({
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home, HERMES_EMULATOR_FAULTS: "complete:crash-after:1" }, author: "x" },
    });
    const { lease } = await board.claim(id, 600);
    expect(await board.complete(lease, { summary: "once", metadata: { ok: true } })).toBe("already_applied");
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
    const { lease } = await board.claim(id, 600);
    await board.heartbeat(lease, "fine");
    expect((await board.show(id)).task.status).toBe("running");
  });
});
