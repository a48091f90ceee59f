// ssh quoting that does not depend on the board host's login shell (issue 50): sshd hands the joined
// command line to the remote user's login shell, which need not be POSIX. With fish (its single quotes
// take `\'` and `\\` as escapes) the POSIX quoting let a comment run a command on the board host. A stand-in
// ssh whose login shell parses by fish's rules (test/fixtures/fake-ssh-fish.mjs) carries the Board's calls
// — comment text, a fenced heartbeat's note, the call server's launch — byte for byte, running nothing else.
import { chmodSync, copyFileSync, cpSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HermesCli } from "../../src/board/cli.js";
import { buildCliEnv } from "../../src/board/env.js";
import { HermesCliBoard } from "../../src/board/index.js";
import { announcedProcess, hermesArgv } from "../../src/board/remote.js";
import { acquire } from "../../src/lease/acquire.js";
import { fencedOf } from "../contract/board-contract.js";
import { EMULATOR_BIN, Emu } from "../helpers/emulator.js";

/** The stand-in, installed as a program named `ssh` (how the bridge recognises a remote shell). */
function fishSsh(): string {
  const ssh = join(mkdtempSync(join(tmpdir(), "hkb-fish-ssh-")), "ssh");
  copyFileSync(resolve("test/fixtures/fake-ssh-fish.mjs"), ssh);
  chmodSync(ssh, 0o755);
  return ssh;
}

let emu: Emu | undefined;
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
  emu?.cleanup();
  emu = undefined;
});

describe("ssh to a board host whose login shell is not POSIX (fish)", () => {
  it("comment text with quotes, backslashes, separators, newlines and expansions lands as text; nothing runs on the board host", async () => {
    emu = await Emu.create();
    const e = emu;
    const marker = mkdtempSync(join(tmpdir(), "hkb-fish-mark-"));
    const board = new HermesCliBoard({
      slug: e.slug,
      command: [fishSsh(), "-o", "BatchMode=yes", "board-host", process.execPath, EMULATOR_BIN],
      env: { parent: process.env, passEnv: [], set: { HERMES_HOME: e.home }, author: "fish-bridge" },
      timeoutMs: 20_000,
      retry: { retries: 0, minDelayMs: 20, maxDelayMs: 100, deadlineMs: 20_000 },
    });
    const id = await e.createTask("t", { assignee: "s" });
    const texts = [
      // what ran `touch` on a fish board host with the POSIX quoting: `'\''` read as an escaped quote
      `\\'; touch ${marker}/pwned; echo \\'`,
      "ends in a backslash \\",
      'two \\\\ and a quote \' and "double" and `back`',
      `$(touch ${marker}/pwned2) (touch ${marker}/pwned3) $HOME %self ~ *`,
      "line one\nline two\n\ttabbed !bang !! \\0101 \\c %s %b",
      "héllo wörld ✓ — unicode",
    ];
    for (const text of texts) await board.comment(id, "someone", text);
    expect((await e.show(id)).comments.map((c) => c.body)).toEqual(texts);
    expect(readdirSync(marker)).toEqual([]);
    // a read with plain words only goes as it is, and works
    expect((await board.listReady({ assignee: "s" })).map((t) => t.id)).toEqual([id]);
    // the fencing pair travels in the script: a fenced heartbeat lands, its note as text
    const { lease } = await acquire(board, id, 600);
    // the claim's process, announced by the board host through fish too, is the lock Hermes wrote
    expect(lease.claimLock).toMatch(/^\S+:\d+$/);
    expect((await e.show(id)).events.find((x) => x.kind === "claimed")?.payload?.lock).toBe(lease.claimLock);
    const note = "halfway; it's 50% \\' done";
    await fencedOf(board, lease).heartbeat(note);
    expect((await e.show(id)).events.findLast((x) => x.kind === "heartbeat")?.payload?.note).toBe(note);
  }, 120_000);

  it("the call server starts through it (from `/`, a Python launcher on the board host)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hkb-fake-hermes-"));
    cpSync(resolve("test/fixtures/fake-hermes"), dir, { recursive: true });
    const env = { parent: { PATH: process.env.PATH ?? "" }, passEnv: [], set: {}, author: "cs" };
    const c = new HermesCli({
      slug: "b",
      command: [fishSsh(), "board-host", join(dir, "hermes")],
      env,
      callServer: "auto",
      timeoutMs: 20_000,
      hangGraceMs: 500,
    });
    closers.push(() => c.transport.close());
    const r = await c.transport.run({
      args: ["pid"],
      env: buildCliEnv(env, undefined),
      remoteEnv: { HERMES_KANBAN_TASK: "t_1 '$x'" },
      timeoutMs: 20_000,
      captureLimit: 1 << 20,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(c.transport.mode).toBe("server");
  }, 60_000);

  it("a board host's announced process is the line with the call's nonce, which nothing the CLI prints can forge; it leaves stderr", () => {
    const said = "Warning: Permanently added 'h'\nhkb-board-process-0af3 bh:42 1796550284\nError: no\n";
    expect(announcedProcess(said, "0af3")).toEqual({ host: "bh", pid: 42, since: 1796550284, stderr: "Warning: Permanently added 'h'\nError: no\n" });
    // task text the CLI echoes cannot name a process: it does not know the call's nonce
    expect(announcedProcess("Error: bad title\nhkb-board-process-1234 evil:1 1\n", "0af3")).toBeNull();
    expect(announcedProcess("Error: hkb-board-process-0af3 x:1 1 (not a line of its own)", "0af3")).toBeNull();
    const claim = ["kanban", "claim", "t_1"];
    const plain = ["ssh", "h", "hermes"];
    expect(hermesArgv(plain, claim, {}, { announce: "0af3" })).not.toEqual(hermesArgv(plain, claim, {}));
    // a remote prefix that is shell syntax is not `exec`ed (it would mean something else), nor a nonce that is not hex
    const shellSyntax = ["ssh", "h", "cd", "/x", "&&", "hermes"];
    expect(hermesArgv(shellSyntax, claim, {}, { announce: "0af3" })).toEqual(hermesArgv(shellSyntax, claim, {}));
    expect(hermesArgv(plain, claim, {}, { announce: "x'; rm" })).toEqual(hermesArgv(plain, claim, {}));
  });

  it("the outer word holds nothing a login shell would read: no quote, backslash, newline or bang inside it", () => {
    const argv = hermesArgv(["ssh", "h", "hermes"], ["comment", "--", "t_1", "a'b\\c\nd!e$f`g\"h"], { HERMES_KANBAN_TASK: "t_1" });
    expect(argv.slice(0, 4)).toEqual(["ssh", "h", "sh", "-c"]);
    const outer = argv[4] ?? "";
    expect(outer.startsWith("'") && outer.endsWith("'")).toBe(true);
    expect(outer.slice(1, -1)).toMatch(/^[^'\n!]*$/);
    expect(outer.slice(1, -1)).not.toMatch(/\\(?!0[0-7]{3})/);
    // plain words go as they are (every shell reads them alike)
    expect(hermesArgv(["ssh", "h", "hermes"], ["kanban", "--board", "b", "list", "--json"], { HERMES_PROFILE: "bridge" })).toEqual([
      "ssh",
      "h",
      "env",
      "HERMES_PROFILE=bridge",
      "hermes",
      "kanban",
      "--board",
      "b",
      "list",
      "--json",
    ]);
  });
});
