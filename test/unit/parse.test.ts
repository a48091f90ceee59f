import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseWatchLine } from "../../src/board/events.js";
import { parseClaim, parseShow, parseTaskList } from "../../src/board/parse.js";
import { readyTaskFromLine } from "../../src/discovery/scheduler.js";
import { openRun } from "../../src/lease/lease.js";

describe("output parsers on recorded Hermes 0.20.0 output", () => {
  it("reads the lease from show --json after a claim", () => {
    const d = parseShow(readFileSync("test/fixtures/hermes/show-running.json", "utf8"));
    expect(d.task.status).toBe("running");
    expect(d.children).toEqual(["t_72e303dd"]);
    expect(openRun(d)).toEqual({ runId: 1, lock: "vm:26687", expires: 1796005578 });
  });

  it("maps unknown statuses and outcomes to unknown, keeps unknown keys harmless", () => {
    const [t] = parseTaskList(JSON.stringify([{ id: "t_1", title: "x", status: "hibernating", brand_new_key: 1 }]));
    expect(t?.status).toBe("unknown");
    const d = parseShow(JSON.stringify({ task: { id: "t_1", title: "x", status: "done" }, runs: [{ id: 1, status: "weird", outcome: "teleported" }] }));
    expect(d.runs[0]?.outcome).toBe("unknown");
  });

  it("parses every recorded watch line and finds ready-making events", () => {
    const lines = readFileSync("test/fixtures/hermes/watch-lines.txt", "utf8").trim().split("\n");
    const parsed = lines.map(parseWatchLine);
    expect(parsed.every((p) => p.event !== null)).toBe(true);
    expect(parsed.find((p) => p.event?.kind === "block_loop_detected")?.event?.taskId).toBe("t_2ec1f419");
    const ready = parsed.map(readyTaskFromLine).filter(Boolean);
    expect(ready).toEqual(["t_ea685691", "t_527b5d82", "t_527b5d82", "t_527b5d82", "t_527b5d82", "t_2ec1f419", "t_2ec1f419", "t_1b3a2ccf", "t_53fe1e8d"]);
    expect(parseWatchLine("Watching kanban events. Ctrl-C to stop.").event).toBeNull();
  });

  it("parses claim output exactly, rejects anything else", () => {
    expect(parseClaim("Claimed t_1\nWorkspace: /w/t_1\n", "t_1")).toEqual({ workspace: "/w/t_1" });
    expect(() => parseClaim("Claimed t_2\nWorkspace: /w\n", "t_1")).toThrow(/no "Claimed t_1" line/);
  });
});
