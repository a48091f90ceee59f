// Rows 1, 2, 4 and 5 of the jail's other doors on the real Hermes CLI (HERMES_BIN), 0.20 and 0.21 alike
// (npm run test:real runs this file once per line): never host root, a fresh CLI home per run (the real
// Claude Code CLI), the workspace's git no door, the CLI's stream forged and checked, and its process open to
// no other of the jail. Scenarios:
// test/helpers/jail-doors.ts; the emulator's run of the same rows is test/hostile/jail-doors.test.ts.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { Emu } from "../helpers/emulator.js";
import { blockedWhy, forgedStream, freshCliHome, gitNoDoor, notHostRoot, operatorGitStatus, streamClosed } from "../helpers/jail-doors.js";

const bin = process.env.HERMES_BIN;
const BWRAP = (await probeBwrap("bwrap", process.env)).ok;

let board: Emu | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  board?.cleanup();
  board = undefined;
});
const real = async () => {
  board = await Emu.create("real", { command: splitCommand(bin ?? "") });
  return board;
};

describe.skipIf(!bin || !BWRAP)("the jail's other doors on the real Hermes CLI", () => {
  it("row 1: the agent is never host root; /proc/sys is read-only", async () => {
    await notHostRoot(await real());
  });

  it("row 2: a task's planted memory and hook never reach the seat's next task (the real Claude Code CLI)", async () => {
    await freshCliHome(await real(), closers);
  });

  it("row 4: the workspace's git is no door: read-only in the jail, a swapped .git put back, the task blocked naming it", async () => {
    const e = await real();
    const ws = join(e.dir, "projects", "repo");
    mkdirSync(ws, { recursive: true });
    execFileSync("git", ["-C", ws, "init", "-q", "-b", "main"]);
    writeFileSync(join(ws, "README.md"), "# repo\n");
    execFileSync("git", ["-C", ws, "add", "-A"]);
    execFileSync("git", ["-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"]);
    const before = readFileSync(join(ws, ".git", "config"), "utf8");
    const { doc, marker } = await gitNoDoor(e, ws);
    expect(doc.task.status).toBe("blocked");
    expect(blockedWhy(doc)).toMatch(/\.git in .* was replaced or redirected during the run/);
    expect(readFileSync(join(ws, ".git", "config"), "utf8")).toBe(before);
    operatorGitStatus(ws, marker);
  });

  it("row 5: a limit forged on the CLI's stream pauses the seat briefly; the task goes back to the lane", async () => {
    await forgedStream(await real());
  });

  it("row 5: only the CLI holds its stream; no process of the jail opens its memory or descriptors (no Yama needed)", async () => {
    await streamClosed(await real());
  });
});
