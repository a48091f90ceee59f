// The board talks to a running agent on the real Hermes CLI (HERMES_BIN): the real `watch` carries an
// operator's reclaim, block and comment to the run at once — at the default TTL and heartbeat (120 s)
// the agent is stopped before any heartbeat, nothing of its run lands after, and a comment reaches a
// command agent's inbox exactly once (the seat's own never).
import { describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { Emu } from "../helpers/emulator.js";
import { noteToInbox, operatorStops } from "../helpers/steering.js";

const bin = process.env.HERMES_BIN;
const real = () => Emu.create("real", { command: splitCommand(bin ?? "") });

describe.skipIf(!bin)("a running agent hears the real board", () => {
  it("an operator's `reclaim` stops the agent and nothing of its run lands after", async () => {
    const e = await real();
    try {
      const { doc } = await operatorStops(e, "reclaim");
      expect(doc.runs[0]?.outcome).toBe("reclaimed");
    } finally {
      e.cleanup();
    }
  }, 120_000);

  it("an operator's `block` stops the agent and nothing of its run lands after", async () => {
    const e = await real();
    try {
      const { doc } = await operatorStops(e, "block");
      expect(doc.task.status).toBe("blocked");
    } finally {
      e.cleanup();
    }
  }, 120_000);

  it("a comment reaches a command agent's inbox through the real watch, once", async () => {
    const e = await real();
    try {
      await noteToInbox(e, { watch: true });
    } finally {
      e.cleanup();
    }
  }, 120_000);
});
