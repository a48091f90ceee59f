// Capabilities, not versions, end to end: on a Hermes whose CLI heartbeat renews the claim (the
// emulator's compat "named-claims": named claims, `heartbeat --claimer --ttl`), the bridge reads that from --help at start, renews on every heartbeat,
// and a run longer than one TTL completes; on 0.20.0 the same run is cut at its deadline.
import { describe, expect, it } from "vitest";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { Emu } from "../helpers/emulator.js";

/** Both cases wait out real time (a run longer than a TTL): they run side by side, each on its own board. */
async function onBoard(fn: (emu: Emu) => Promise<void>): Promise<void> {
  const emu = await Emu.create();
  try {
    await fn(emu);
  } finally {
    emu.cleanup();
  }
}

// TTL 8 s (the protocol's floor lowered for the test): the deadline is 6 s after the claim (safety 2 s), the
// polite stop 1 s before it; a run of 7 s outlives one TTL's deadline.
const base = { claim: { ttlSeconds: 8 }, heartbeat: { intervalSeconds: 1 } };
const protocol = { minTtlSeconds: 5 };

describe.concurrent("a claim the CLI can renew", () => {
  it("is renewed on every heartbeat: a 7 s run under an 8 s TTL completes", () =>
    onBoard(async (emu) => {
      const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:linger LINGER:7" });
      const b = await runBridge(emu, { base, protocol, hermesEnv: { HERMES_EMULATOR_COMPAT: "named-claims" } });
      await b.daemon.done;
      const d = await emu.show(id);
      expect(d.task.status).toBe("done");
      expect(d.runs).toHaveLength(1);
      expect(d.runs[0]?.summary).toBe("lingered 7s");
      expect(b.reports[0]).toMatchObject({ decision: "complete", close: "applied" });
    }));

  it("is not renewed by 0.20.0: the same run is cut at its deadline and blocked", () =>
    onBoard(async (emu) => {
      const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:linger LINGER:7" });
      const b = await runBridge(emu, { base, protocol });
      await b.daemon.done;
      expect((await emu.show(id)).task.status).toBe("blocked");
      expect(b.reports[0]).toMatchObject({ decision: "block", cut: "deadline" });
    }));
});
