// The emulator's state machine against the contract (hermes-cli-contract.md §2, §8): the cases the
// Board contract suite does not reach through the bridge's own verbs.
import { afterEach, describe, expect, it } from "vitest";
import { parseWatchLine } from "../../src/board/events.js";
import { formatWatchLine } from "../../src/emulator/verbs/watch.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("emulator state machine", () => {
  it("list promotes a todo child once its parent is done", async () => {
    emu = await Emu.create();
    const parent = await emu.createTask("parent", { assignee: "s" });
    const child = await emu.createTask("child", { assignee: "s", parent });
    expect((await emu.show(child)).task.status).toBe("todo");
    expect((await emu.kanban(["claim", child])).stderr).toBe(`cannot claim ${child}: status=todo lock=(none)\n`);
    await emu.kanban(["complete", parent, "--summary", "api designed"]);
    const ready = JSON.parse((await emu.kanban(["list", "--json", "--status", "ready"])).stdout) as { id: string }[];
    expect(ready.map((t) => t.id)).toContain(child);
    expect((await emu.show(child)).events.map((e) => e.kind)).toContain("promoted");
    expect((await emu.kanban(["context", child])).stdout).toContain("api designed");
  });

  it("claim clamps the TTL to 1 s and opens a new run each time", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("ttl", { assignee: "s" });
    expect((await emu.kanban(["claim", id, "--ttl", "0"])).code).toBe(0);
    const ev = (await emu.show(id)).events.find((e) => e.kind === "claimed");
    expect(Number(ev?.payload?.expires) - Number(ev?.created_at)).toBe(1);
    expect((await emu.kanban(["claim", id, "--ttl", "1.5"])).stderr).toContain("argument --ttl: invalid int value: '1.5'");
    await emu.kanban(["reclaim", id]);
    await emu.kanban(["claim", id]);
    expect((await emu.show(id)).runs.map((r) => [r.id, r.status])).toEqual([
      [1, "reclaimed"],
      [2, "running"],
    ]);
  });

  it("complete: state matrix, double complete, unfenced complete on a ready task synthesizes a run", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("c", { assignee: "s" });
    expect((await emu.kanban(["complete", id, "--summary", "closed without claim"])).code).toBe(0);
    expect((await emu.show(id)).runs[0]?.status).toBe("completed");
    const again = await emu.kanban(["complete", id, "--summary", "again"]);
    expect([again.code, again.stderr]).toEqual([1, `cannot complete ${id} (unknown id or terminal state)\n`]);
    const multi = await emu.kanban(["complete", id, "t_00000000", "--summary", "x"]);
    expect(multi.code).toBe(2);
  });

  it("a missing scratch artifact fails the complete and leaves the task running", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("a", { assignee: "s" });
    const claim = await emu.kanban(["claim", id]);
    const ws = /Workspace: (.*)/.exec(claim.stdout)?.[1] ?? "";
    const r = await emu.kanban(["complete", id, "--metadata", JSON.stringify({ artifacts: [`${ws}/nope.txt`] })]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("declared scratch artifact is unavailable or not a regular file");
    expect((await emu.show(id)).task.status).toBe("running");
  });

  it("block: comment first (even when the block fails), kinds, dependency loops back, recurrence goes to triage", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("b", { assignee: "s" });
    await emu.kanban(["claim", id]);
    expect((await emu.kanban(["block", "--kind=needs_input", "--", id, "first"])).stdout).toBe(`Blocked ${id}: first\n`);
    expect((await emu.kanban(["block", id, "second"])).code).toBe(1);
    expect((await emu.show(id)).comments.map((c) => c.body)).toEqual(["BLOCKED: first", "BLOCKED: second"]);
    await emu.kanban(["unblock", id]);
    await emu.kanban(["claim", id]);
    expect((await emu.kanban(["block", "--kind=needs_input", "--", id, "again"])).stdout).toBe(
      `${id} → triage (unblock loop detected — needs a human decision): again\n`,
    );
    const dep = await emu.createTask("d", { assignee: "s" });
    expect((await emu.kanban(["block", "--kind=dependency", "--", dep, "wait"])).stdout).toBe(`${dep} → todo (dependency wait): wait\n`);
    await emu.kanban(["list", "--json"]);
    expect((await emu.show(dep)).task.status).toBe("ready");
  });

  it("dispatch reclaims expired claims only, and skips non-profile assignees", async () => {
    emu = await Emu.create();
    const a = await emu.createTask("expired", { assignee: "lane" });
    const b = await emu.createTask("live", { assignee: "lane" });
    await emu.kanban(["claim", a, "--ttl", "30"]);
    await emu.kanban(["claim", b, "--ttl", "7200"]);
    emu.advance(60);
    const out = JSON.parse((await emu.kanban(["dispatch", "--json"])).stdout) as { reclaimed: number; skipped_nonspawnable: string[] };
    emu.advance(0);
    expect(out.reclaimed).toBe(1);
    expect(out.skipped_nonspawnable).toEqual([a]);
    expect((await emu.show(b)).task.status).toBe("running");
  });

  it("watch lines have the documented shape (repr payloads, padded kind)", () => {
    const line = formatWatchLine({
      id: 1,
      task_id: "t_527b5d82",
      kind: "blocked",
      payload: JSON.stringify({ reason: "need a human: 'quote' \"dq\"\nnewline", kind: "needs_input", recurrences: 1 }),
      created_at: 1796001780,
      assignee: "claude-bridge",
      tenant: null,
    });
    expect(line.slice(18)).toBe(
      " t_527b5d82 blocked            (@claude-bridge) {'reason': 'need a human: \\'quote\\' \"dq\"\\nnewline', 'kind': 'needs_input', 'recurrences': 1}",
    );
    expect(parseWatchLine(line).event).toMatchObject({ taskId: "t_527b5d82", kind: "blocked", assignee: "claude-bridge" });
  });
});
