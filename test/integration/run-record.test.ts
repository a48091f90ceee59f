// One record of a run: a claim whose run id could not be read at the claim (every `show` of the claim
// failed) reads it once before the agent starts, and from then on every record of the run names the
// same run — the report, the close's metadata, the active-run journal and the heartbeat events.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

describe("the run id read late", () => {
  it("is the same in the report, the close's metadata, the active-run journal and the heartbeat events", async () => {
    emu = await Emu.create();
    // an earlier run takes run id 1, so ours is 2
    const first = await emu.createTask("earlier", { assignee: "someone-else" });
    await emu.kanban(["claim", first]);
    const id = await emu.createTask("read late", { assignee: SEAT, body: "MODE:linger LINGER:3" });
    // The claim's `show` and its 3 retries fail: the run id is read by the run itself.
    const b = await runBridge(emu, { faults: "show:transient:4" });
    const beats: (number | null)[] = [];
    const claimed: (number | null)[] = [];
    b.daemon.on("claimed", (e) => claimed.push(e.runId));
    let journaled: number | null | undefined;
    b.daemon.on("heartbeat", (e) => {
      beats.push(e.runId);
      if (journaled === undefined) {
        const f = join(b.config.stateDir, "active", `${emu.slug}__${id}.json`);
        journaled = (JSON.parse(readFileSync(f, "utf8")) as { runId: number | null }).runId;
      }
    });
    await b.daemon.done;
    const d = await emu.show(id);
    const runId = d.runs.at(-1)?.id;
    expect(runId).toBe(2);
    expect(claimed).toEqual([null]); // the claim itself could not read it
    expect(d.task.status).toBe("done");
    expect(b.reports[0]?.runId).toBe(runId);
    expect(d.runs.at(-1)?.metadata).toMatchObject({ bridge: { run_id: runId } });
    expect(journaled).toBe(runId);
    expect(beats.length).toBeGreaterThan(0);
    expect(new Set(beats)).toEqual(new Set([runId]));
  });
});
