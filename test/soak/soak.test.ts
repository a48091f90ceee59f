// The fixed-seed CI slice of the chaos soak (`npm run soak` runs the full size).
import { describe, expect, it } from "vitest";
import { runSoak } from "../../bench/soak/run.js";

describe("chaos soak (CI slice)", () => {
  it("30 tasks, 3 racing daemons, seeded faults: nothing lost, nothing written without the lease", async () => {
    // A mixed fleet, as on a real board: two seats on the call server (what a seat on real Hermes runs
    // by default) and one with a process per call (a seat whose launcher is no Python, e.g. over ssh).
    const res = await runSoak({ seed: 20261130, tasks: 30, daemons: 3, timeoutMs: 150_000, callServer: ["on", "on", "off"] });
    expect(res.failures).toEqual([]);
    expect(res.audit.neverClosed).toEqual([]);
    expect(res.audit.claimsAccounted).toBe(res.audit.claims);
  }, 200_000);
});
