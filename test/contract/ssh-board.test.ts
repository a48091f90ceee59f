// The Board contract through ssh ("ssh board-host hermes"), with a fake ssh that re-parses the remote
// command in /bin/sh and passes no environment — as sshd does. Every byte of task text still lands as
// data (never as remote shell input), and the fencing pair still reaches the CLI: it travels on the
// remote command line (board/remote.ts).
import { chmodSync, copyFileSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { HermesCliBoard } from "../../src/board/index.js";
import { EMULATOR_BIN, Emu } from "../helpers/emulator.js";
import { boardContract } from "./board-contract.js";
import { emulatorHarness } from "./emulator-harness.js";

/** The fake, installed as a program named `ssh` (how the bridge recognises a remote shell). */
const SSH = join(mkdtempSync(join(tmpdir(), "hkb-fake-ssh-")), "ssh");
copyFileSync(resolve("test/fixtures/fake-ssh.sh"), SSH);
chmodSync(SSH, 0o755);
const overSsh = (emu: Emu, slug?: string) =>
  new HermesCliBoard({
    slug: slug ?? emu.slug,
    command: [SSH, "-o", "BatchMode=yes", "board-host", process.execPath, EMULATOR_BIN],
    env: { parent: process.env, passEnv: [], set: { HERMES_HOME: emu.home }, author: "ssh-bridge" },
    timeoutMs: 20_000,
    retry: { retries: 3, minDelayMs: 20, maxDelayMs: 100, deadlineMs: 20_000 },
  });

boardContract("HermesCliBoard through ssh (fake ssh, emulator board)", async () => {
  const emu = await Emu.create();
  return emulatorHarness(emu, (slug) => overSsh(emu, slug));
});

describe("task text through ssh", () => {
  it("shell syntax in a comment is text on the board, never run on the board host", async () => {
    const emu = await Emu.create();
    try {
      const marker = mkdtempSync(join(tmpdir(), "hkb-ssh-"));
      const id = await emu.createTask("t", { assignee: "s" });
      const text = `$(touch ${marker}/pwned) \`touch ${marker}/pwned2\`; touch ${marker}/pwned3 & echo 'quote' "dq" \\ | > ${marker}/x`;
      await overSsh(emu).comment(id, "someone", text);
      expect((await emu.show(id)).comments.at(-1)?.body).toBe(text);
      expect(readdirSync(marker)).toEqual([]);
    } finally {
      emu.cleanup();
    }
  });
});
