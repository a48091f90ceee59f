// A usage-limit cut continues without an operator (seat.onLimit), on the emulator; the real-CLI lane
// runs the same scenarios in test/real/limits.test.ts.
import { describe, expect, it } from "vitest";
import { Emu } from "../helpers/emulator.js";
import { limitContinues, limitedUntil } from "../helpers/limits.js";

describe.concurrent("a seat's usage limit", () => {
  it("handoff: seat A gives the task back to the lane, seat B completes it at once (fresh, with A's progress)", async () => {
    const emu = await Emu.create();
    try {
      const { doc } = await limitContinues(emu, "handoff", 600_000); // A past its reset could take it back: not in the test's time
      expect(doc.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
      expect(doc.runs.at(-1)?.summary).toBe("done by seat-b (fresh)");
      expect(doc.runs.at(-1)?.metadata).toMatchObject({ bridge: { seat: "seat-b" } });
      expect(doc.events.find((e) => e.kind === "reclaimed")?.payload?.reason).toMatch(/usage limit of seat seat-a .*handed back to the lane 'test-seat'/);
    } finally {
      emu.cleanup();
    }
  }, 150_000);

  it("wait: seat A parks the task and completes it after the reset, resuming its own session", async () => {
    const emu = await Emu.create();
    try {
      const { doc } = await limitContinues(emu, "wait", 3_000);
      expect(doc.runs.map((r) => r.outcome)).toEqual(["scheduled", "completed"]);
      expect(doc.runs.at(-1)?.summary).toMatch(/^done by seat-a \(resumed sess-t_[0-9a-f]+-seat-a\)$/);
      expect(doc.comments.some((c) => /^UNBLOCK: the usage limit of seat seat-a has reset/.test(c.body))).toBe(true);
    } finally {
      emu.cleanup();
    }
  }, 150_000);

  it("an account limited until a fixed time (the agent's word, unconfirmed), wait: the same seat completes it after the reset — no run before it, never blocked", async () => {
    const emu = await Emu.create();
    try {
      const { doc, runs, until } = await limitedUntil(emu, "wait", 8_000);
      expect(doc.task.status).toBe("done");
      expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
      expect(doc.runs.at(-1)?.summary).toBe("done by seat-a after the reset");
      // the first run met the limit; the seat claimed nothing more until the reset it named
      expect(runs.slice(1).every((r) => r.at >= until)).toBe(true);
    } finally {
      emu.cleanup();
    }
  }, 150_000);

  it("an account limited until a fixed time, handoff: a sibling seat of the lane completes it at once, never blocked", async () => {
    const emu = await Emu.create();
    try {
      const { doc, runs, until } = await limitedUntil(emu, "handoff", 60_000);
      expect(doc.task.status).toBe("done");
      expect(doc.events.map((e) => e.kind)).not.toContain("blocked");
      expect(doc.runs.at(-1)?.summary).toBe("done by seat-b before the reset");
      expect(runs.at(-1)?.seat).toBe("seat-b");
      expect(runs.at(-1)?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(until);
    } finally {
      emu.cleanup();
    }
  });
});
