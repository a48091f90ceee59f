// A claim that takes effect and then fails (issue row 5): Hermes commits the claim of a `worktree`
// task, then cannot make its workspace and exits 1 — any task author can do this. The bridge reads
// the task once, finds the run under its own claim's lock, and closes it with a block naming the CLI's
// error: the task is never left `running` under our lock until the TTL, and `--once` says it closed it.
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { hasAllFields } from "../../src/result/template.js";
import { runArgv } from "../helpers/bridge.js";
import { CLI_BIN, Emu, type ShowDoc } from "../helpers/emulator.js";
import { SEAT } from "../helpers/bridge.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const reasonOf = (d: ShowDoc) => String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");

describe("row 5: a claim that exits non-zero after taking effect", () => {
  it("is ours: closed at once with a block naming the CLI's error, never left running; --once exits 0", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("worktree without a workdir", { assignee: SEAT, body: "MODE:complete", workspace: "worktree" });
    const r = await runProcess({
      argv: [process.execPath, CLI_BIN, ...runArgv(emu, join(emu.dir, "state"), { once: true }), "--log-format", "json"],
      env: { PATH: process.env.PATH ?? "", HOME: emu.dir },
      timeoutMs: 60_000,
    });
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = reasonOf(d);
    expect(hasAllFields(reason)).toBe(true);
    expect(reason).toMatch(/the board took this seat's claim, but `hermes kanban claim` then failed: .*has workspace_kind=worktree but no workspace_path/i);
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.outcome).toBe("blocked");
    expect(r.exitCode).toBe(0);
  });
});
