// Rows 1, 3 and 4 of the jail issue on the real Hermes CLI (HERMES_BIN), with the jail on and off: a
// `dir:` workspace in the board's own directory never gets an agent; a note inbox swapped for a link or
// a FIFO neither reaches a host file nor blocks the daemon. Scenarios: test/helpers/jail-rows.ts.
import { afterEach, describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { Emu } from "../helpers/emulator.js";
import { type Isolation, boardDirWorkspace, swappedInbox } from "../helpers/jail-rows.js";

const bin = process.env.HERMES_BIN;
const MODES: Isolation[] = (await probeBwrap("bwrap", process.env)).ok ? ["bwrap", "none"] : ["none"];

let board: Emu | undefined;
afterEach(() => {
  board?.cleanup();
  board = undefined;
});
const real = async () => {
  board = await Emu.create("real", { command: splitCommand(bin ?? "") });
  return board;
};

describe.skipIf(!bin).each(MODES)("jail rows on the real Hermes CLI (agent.isolation: %s)", (isolation) => {
  it("row 1: `dir:` the board's own directory or another task's scratch dir: blocked, no agent", async () => {
    await boardDirWorkspace(await real(), isolation);
  });

  it("row 3: an inbox swapped for a link: the host file is untouched", async () => {
    const { summary } = await swappedInbox(await real(), isolation, "link");
    expect(summary).toMatch(/^inbox /);
  });

  it("row 4: an inbox swapped for a FIFO: the daemon answers, the note is handed over, the task closes", async () => {
    const { summary } = await swappedInbox(await real(), isolation, "fifo");
    expect(summary).toMatch(/^inbox /);
  });
});
