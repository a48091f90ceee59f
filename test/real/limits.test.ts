// A seat's usage limit continued without an operator, on the real Hermes CLI (HERMES_BIN): the reset
// 20 s ahead; `handoff` — another seat of the lane completes the task at once; `wait` — the seat parks it
// (`schedule`) and completes it after the reset, resuming its session. Never blocked, never in triage
// (Hermes's unblock-loop breaker counts blocks; a manual reclaim and a schedule are not failures).
import { describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { Emu } from "../helpers/emulator.js";
import { limitContinues } from "../helpers/limits.js";

const bin = process.env.HERMES_BIN;
const real = () => Emu.create("real", { command: splitCommand(bin ?? "") });

describe.skipIf(!bin)("a seat's usage limit on the real Hermes CLI", () => {
  it("handoff: another seat of the lane completes the task at once", async () => {
    const e = await real();
    try {
      const { doc } = await limitContinues(e, "handoff", 20_000);
      expect(doc.runs.map((r) => r.outcome)).toEqual(["reclaimed", "completed"]);
      expect(doc.runs.at(-1)?.summary).toBe("done by seat-b (fresh)");
    } finally {
      e.cleanup();
    }
  }, 120_000);

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
});
