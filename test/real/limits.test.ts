// A seat's usage limit continued without an operator, on the real Hermes CLI (HERMES_BIN): `handoff` — another
// seat of the lane completes the task at once (the reset 10 minutes ahead); `wait` — the reset 20 s ahead (and,
// issue 49, a command agent's account limited 15 s with the seat as shipped): the seat parks it
// (`schedule`) and completes it after the reset, resuming its session. Never blocked, never in triage
// (Hermes's unblock-loop breaker counts blocks; a manual reclaim and a schedule are not failures).
import { describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { Emu } from "../helpers/emulator.js";
import { limitContinues, limitedUntil } from "../helpers/limits.js";

const bin = process.env.HERMES_BIN;
const real = () => Emu.create("real", { command: splitCommand(bin ?? "") });

describe.skipIf(!bin)("a seat's usage limit on the real Hermes CLI", () => {
  it("handoff: another seat of the lane completes the task at once", async () => {
    const e = await real();
    try {
      // A's reset 10 minutes ahead: only B can take it in the test's time (on a loaded machine B's start took
      // longer than a 20 s reset, and A, past its reset, took its own task back: a race of the test's making).
      const { doc } = await limitContinues(e, "handoff", 600_000);
      expect(doc.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
      expect(doc.runs.at(-1)?.summary).toBe("done by seat-b (fresh)");
    } finally {
      e.cleanup();
    }
  }, 150_000);

  it("wait: the seat completes it after the reset, resuming its session", async () => {
    const e = await real();
    try {
      const { doc } = await limitContinues(e, "wait", 20_000);
      expect(doc.runs.map((r) => r.outcome)).toEqual(["scheduled", "completed"]);
      expect(doc.runs.at(-1)?.summary).toMatch(/^done by seat-a \(resumed sess-t_[0-9a-f]+-seat-a\)$/);
      expect(doc.task.status).toBe("done");
    } finally {
      e.cleanup();
    }
  }, 120_000);

  it("a command agent's account limited 15 s, the seat as shipped (margin 60 s), wait: done on the same seat after the reset, no run before it, never blocked", async () => {
    const e = await real();
    try {
      const { doc, runs, until } = await limitedUntil(e, "wait", 15_000, { limitMarginSeconds: 60 });
      expect(doc.task.status).toBe("done");
      expect(doc.events.map((x) => x.kind)).not.toContain("blocked");
      expect(runs.slice(1).every((r) => r.at >= until)).toBe(true);
    } finally {
      e.cleanup();
    }
  }, 300_000);

  it("the same, handoff: a sibling seat completes it at once, never blocked", async () => {
    const e = await real();
    try {
      const { doc, runs, until } = await limitedUntil(e, "handoff", 15_000, { limitMarginSeconds: 60 });
      expect(doc.task.status).toBe("done");
      expect(doc.events.map((x) => x.kind)).not.toContain("blocked");
      expect(runs.at(-1)?.seat).toBe("seat-b");
      expect(runs.at(-1)?.at ?? Number.POSITIVE_INFINITY).toBeLessThan(until + 60_000);
    } finally {
      e.cleanup();
    }
  }, 240_000);
});
