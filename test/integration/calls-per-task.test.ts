// CLI calls per task (issue 54): a task that runs and completes takes `claim`, `context`, the claim's
// `show` and `complete` — four calls on the 0.20 and the 0.21 line alike, no heartbeat before one
// interval is up (the claim's read is the run's first ownership check). Counted from the bridge's own
// call log (HKB_CALL_LOG, the one the benchmark reads), with a heartbeat interval no run here outlasts.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

interface Call {
  verb: string;
  task: string | null;
}

describe.each([
  ["0.20", {}],
  ["0.21", { HERMES_EMULATOR_COMPAT: "0.21" }],
])("CLI calls per completed task on the emulator's %s mode", (_line, env: Record<string, string>) => {
  it("claim, context, show, complete: four calls, no heartbeat, for each of three tasks", async () => {
    const e = await Emu.create("bridge", { env });
    emu = e;
    const ids = [await e.createTask("one", { assignee: SEAT }), await e.createTask("two", { assignee: SEAT }), await e.createTask("three", { assignee: SEAT })];
    const log = join(e.dir, "calls.log");
    const b = await runBridge(e, { env: { HKB_CALL_LOG: log }, base: { claim: { ttlSeconds: 3600 }, heartbeat: { intervalSeconds: 600 } } });
    await b.daemon.done;
    expect(b.reports.map((r) => r.decision)).toEqual(["complete", "complete", "complete"]);
    const calls = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Call);
    for (const id of ids) {
      const verbs = calls.filter((c) => c.task === id).map((c) => c.verb);
      expect([...verbs].sort(), `${id}: ${verbs.join(", ")}`).toEqual(["claim", "complete", "context", "show"]);
    }
  });
});

describe("a seat with free slots and a backlog", () => {
  it("claims as many at once as it has slots: every claim goes out before the first task's read is back", async () => {
    const e = await Emu.create("bridge");
    emu = e;
    for (const t of ["one", "two", "three", "four"]) await e.createTask(t, { assignee: SEAT });
    const log = join(e.dir, "calls.log");
    const b = await runBridge(e, { env: { HKB_CALL_LOG: log }, base: { concurrency: 4, claim: { ttlSeconds: 3600 }, heartbeat: { intervalSeconds: 600 } } });
    await b.daemon.done;
    expect(b.reports.map((r) => r.decision)).toEqual(["complete", "complete", "complete", "complete"]);
    const calls = readFileSync(log, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Call & { start: number; end: number });
    const claims = calls.filter((c) => c.verb === "claim");
    const firstRead = Math.min(...calls.filter((c) => c.verb === "context" || c.verb === "show").map((c) => c.end));
    expect(claims).toHaveLength(4);
    // one after another, each claim waited for the task before it to be read (claim, context ∥ show)
    expect(claims.map((c) => c.start < firstRead)).toEqual([true, true, true, true]);
  });
});
