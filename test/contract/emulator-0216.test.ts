// The emulator as Hermes 0.21.6 (HERMES_EMULATOR_COMPAT=0.21.6, src/emulator/verbs/line0216.ts after
// NousResearch/hermes-agent hermes_cli/kanban_parser.py at ee272988f7576e9bf87d3e785290508c6ff24b0a):
// its version line and verbs, `reopen`, upstream bug #101785 (a complete lands on a blocked task and
// promotes its children — unless it is fenced on a run that is no longer current), and a corrupt board
// with `repair` as the real 0.21.3 CLI prints them (the same texts from 0.21.3 on).
import { existsSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});
const board = async (compat = "0.21.6") => {
  emu = await Emu.create("b", { env: { HERMES_EMULATOR_COMPAT: compat } });
  return emu;
};
const status = async (e: Emu, id: string) => (await e.show(id)).task.status;

describe("the emulator as Hermes 0.21.6", () => {
  it("prints 0.21.6's version line and the verbs of its parser: reopen after unblock, no authorize-existing-pr", async () => {
    const e = await board();
    const v = await e.raw(["--version"]);
    expect(v.stdout.split("\n")[0]).toBe("Hermes Agent v0.21.6 (2026.9.24) · upstream 818c13be");
    const h = await e.raw(["kanban", "--help"]);
    expect(h.stdout).toContain(",unblock,reopen,request-review,");
    expect(h.stdout).toContain("    reopen              Undo a completion: reopen a done task (done ->\n                        blocked/todo/ready)\n");
    expect(h.stdout).not.toContain("authorize-existing-pr");
    const r = await e.kanban(["reopen", "--help"]);
    expect(r.stdout).toContain("[--landing {blocked,ready,todo}]");
    expect((await e.kanban(["request-review", "--help"])).stdout).toContain("--force              Override the live-claim guard");
    expect((await e.kanban(["authorize-existing-pr", "t_1"])).code).toBe(2);
    // 0.21.5 keeps its own line and verb.
    const old = await board("0.21.5");
    expect((await old.raw(["kanban", "--help"])).stdout).toContain("authorize-existing-pr");
    expect((await old.raw(["kanban", "--help"])).stdout).not.toContain(",reopen,");
  });

  it("reopen: a done task lands ready with its reason as a REOPEN comment and a reopened event; blocked is sticky; anything not done is refused", async () => {
    const e = await board();
    const id = await e.createTask("done once", { assignee: "x" });
    expect((await e.kanban(["complete", id, "--result", "first"])).code).toBe(0);
    const r = await e.kanban(["reopen", id, "--reason", "the tests fail on main"]);
    expect(r).toMatchObject({ code: 0, stdout: `Reopened ${id} -> ready: the tests fail on main\n` });
    const d = await e.show(id);
    expect(d.task).toMatchObject({ status: "ready", completed_at: null, result: null });
    expect(d.comments.at(-1)?.body).toBe("REOPEN: the tests fail on main");
    expect(d.events.at(-1)).toMatchObject({ kind: "reopened", payload: { landing: "ready", reason: "the tests fail on main" } });
    const again = await e.kanban(["reopen", id]);
    expect(again).toMatchObject({ code: 1, stderr: `cannot reopen ${id} (not done?)\n` });

    const vetoed = await e.createTask("vetoed", { assignee: "x" });
    await e.kanban(["complete", vetoed]);
    expect((await e.kanban(["reopen", vetoed, "--landing", "blocked", "--kind", "capability", "--reason", "gate veto"])).code).toBe(0);
    expect((await e.kanban(["list", "--json"])).code).toBe(0); // a board read recomputes: the veto holds
    expect((await e.show(vetoed)).task.status).toBe("blocked");
    expect((await e.show(vetoed)).events.at(-1)).toMatchObject({ kind: "blocked", payload: { reason: "gate veto", kind: "capability" } });
  });

  it("upstream #101785: an operator's complete of a blocked task exits 0 and promotes its children; a fenced late close is refused and changes nothing", async () => {
    const e = await board();
    const parent = await e.createTask("parent", { assignee: "x" });
    const child = await e.createTask("child", { assignee: "x", parent });
    expect((await e.kanban(["block", parent, "operator: stop", "--kind", "needs_input"])).code).toBe(0);
    expect(await e.kanban(["complete", parent, "--result", "anyway"])).toMatchObject({ code: 0, stdout: `Completed ${parent}\n` });
    expect(await status(e, parent)).toBe("done");
    expect(await status(e, child)).toBe("ready");

    // A worker's close, fenced on its run, after an operator blocked the task: refused, nothing moves.
    const p2 = await e.createTask("parent 2", { assignee: "x" });
    const c2 = await e.createTask("child 2", { assignee: "x", parent: p2 });
    expect((await e.kanban(["claim", p2])).code).toBe(0);
    const run = (await e.show(p2)).runs.at(-1)?.id;
    expect((await e.kanban(["block", p2, "operator: stop"])).code).toBe(0);
    const late = await e.kanban(["complete", p2, "--summary", "late"], { HERMES_KANBAN_TASK: p2, HERMES_KANBAN_RUN_ID: String(run) });
    expect(late).toMatchObject({ code: 1, stderr: `cannot complete ${p2} (unknown id or terminal state)\n` });
    expect(await status(e, p2)).toBe("blocked");
    expect(await status(e, c2)).toBe("todo");
  });

  it("a corrupt board refuses every verb with the CLI's own words until `repair` rebuilds its index; a page-level failure repair refuses", async () => {
    const e = await board();
    const id = await e.createTask("kept", { assignee: "x" });
    const db = `${e.home}/kanban/boards/b/kanban.db`;
    writeFileSync(`${db}.emulator-corrupt`, JSON.stringify({ kind: "page" }));
    const refused = await e.kanban(["show", id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^kanban: could not initialize database: Refusing to open corrupt kanban DB at \S+\/kanban\.db: sqlite refused to open file: database disk image is malformed\. Original preserved; backup at \S+\/kanban\.db\.corrupt\.[0-9a-f]{16}\.bak\.\n$/,
    );
    const bak = /backup at (\S+)\.\n$/.exec(refused.stderr)?.[1] ?? "";
    expect(existsSync(bak)).toBe(true);
    const no = await e.kanban(["repair"]);
    expect(no.code).toBe(1);
    expect(no.stderr).toContain(
      ": CORRUPT.\n  database disk image is malformed\n  Not an index-only failure — automatic REINDEX repair does not apply (fail-closed).\n",
    );
    writeFileSync(`${db}.emulator-corrupt`, JSON.stringify({ kind: "index" }));
    const fixed = await e.kanban(["repair", "--json"]);
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ status: "repaired", reindexed: ["idx_tasks_status"], post_repair_messages: ["ok"] });
    expect(await status(e, id)).toBe("ready");
    expect((await e.kanban(["repair"])).stdout).toMatch(/kanban\.db: integrity_check ok — no repair needed\.\n$/);
    // 0.20.0 has no such guard (nor `repair`): the switch is the 0.21 line's.
    expect((await (await board("0.21")).kanban(["repair", "--json"])).code).toBe(0);
  });
});
