// The jail issue's rows that must hold with the jail on and off (agent.isolation: bwrap and none) — the
// bridge's own boundaries, not the jail's: row 1 (a `dir:` workspace in the board's own tree), rows 3
// and 4 (the note inbox swapped for a link or a FIFO), row 5 (a planted json.py/base64.py where the
// bridge runs, never imported by the call server; its calls keep only their stdio and die with it).
// Rows 1, 3 and 4 also run on real Hermes (test/real/jail-rows.test.ts).
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HermesCli } from "../../src/board/cli.js";
import { type CliEnvOptions, buildCliEnv } from "../../src/board/env.js";
import { probeBwrap } from "../../src/jail/policy.js";
import { Emu } from "../helpers/emulator.js";
import { type Isolation, boardDirWorkspace, swappedInbox } from "../helpers/jail-rows.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok || process.env.HKB_REQUIRE_BWRAP !== undefined;
const MODES: Isolation[] = BWRAP ? ["bwrap", "none"] : ["none"];

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

describe.each(MODES)("agent.isolation: %s", (isolation) => {
  it("row 1: a `dir:` workspace in the board's own directory or another task's scratch dir is blocked before any agent starts", async () => {
    emu = await Emu.create();
    await boardDirWorkspace(emu, isolation);
  });

  it("row 3: an inbox swapped for a link to a host file — a comment never reaches the file", async () => {
    emu = await Emu.create();
    const { summary } = await swappedInbox(emu, isolation, "link");
    // In the jail the inbox is a read-only mount: the agent could not even swap it.
    expect(summary).toMatch(isolation === "bwrap" ? /inbox refused/ : /inbox swapped/);
  });

  it("row 4: an inbox swapped for a FIFO — the daemon never blocks on it, the note is handed over, the task closes", async () => {
    emu = await Emu.create();
    const { summary } = await swappedInbox(emu, isolation, "fifo");
    expect(summary).toMatch(isolation === "bwrap" ? /inbox refused/ : /inbox swapped/);
  });
});

const opts = (): CliEnvOptions => ({ parent: { PATH: process.env.PATH ?? "" }, passEnv: [], set: {}, author: "cs" });
const clis: HermesCli[] = [];
afterEach(async () => {
  for (const c of clis.splice(0)) await c.transport.close();
});

function cli(command: string[]) {
  const c = new HermesCli({ slug: "b", command, env: opts(), callServer: "auto", timeoutMs: 20_000, hangGraceMs: 500 });
  clis.push(c);
  const run = (args: string[]) => c.transport.run({ args, env: buildCliEnv(opts(), undefined), remoteEnv: {}, timeoutMs: 20_000, captureLimit: 1 << 20 });
  return { c, run };
}

/** A private copy of the fake Python CLI. */
function fakeHermes(): string {
  const dir = mkdtempSync(join(tmpdir(), "hkb-fake-hermes-"));
  cpSync(resolve("test/fixtures/fake-hermes"), dir, { recursive: true });
  return join(dir, "hermes");
}

/** The fake ssh (test/fixtures/fake-ssh.sh: the remote command through /bin/sh, no env) installed as `ssh`. */
function fakeSsh(): string {
  const ssh = join(mkdtempSync(join(tmpdir(), "hkb-fake-ssh-")), "ssh");
  copyFileSync(resolve("test/fixtures/fake-ssh.sh"), ssh);
  chmodSync(ssh, 0o755);
  return ssh;
}

describe("the call server holds against its surroundings (jail issue, row 5)", () => {
  /** A directory with json.py and base64.py that leave a mark when imported; the worker runs from it. */
  function planted(): { dir: string; mark: string; restore: () => void } {
    const dir = mkdtempSync(join(tmpdir(), "hkb-planted-"));
    const mark = join(dir, "IMPORTED");
    for (const m of ["json", "base64", "select"]) writeFileSync(join(dir, `${m}.py`), `open(${JSON.stringify(mark)}, "a").write("${m}\\n")\n`);
    const before = process.cwd();
    process.chdir(dir);
    return { dir, mark, restore: () => process.chdir(before) };
  }

  it("a json.py/base64.py where the bridge runs is never imported: locally (python3 -I, from /) and through ssh (cd / &&)", async () => {
    const [launcher, remoteLauncher, ssh] = [fakeHermes(), fakeHermes(), fakeSsh()];
    const p = planted();
    try {
      const local = cli([launcher]);
      expect((await local.run(["pid"])).exitCode).toBe(0);
      expect(local.c.transport.mode).toBe("server");
      const viaSsh = cli([ssh, "board-host", remoteLauncher]);
      expect((await viaSsh.run(["pid"])).exitCode).toBe(0);
      expect(viaSsh.c.transport.mode).toBe("server");
      expect(existsSync(p.mark), existsSync(p.mark) ? readFileSync(p.mark, "utf8") : "").toBe(false);
    } finally {
      p.restore();
    }
  });

  it("a call's child holds only its own stdio, and dies with the server", async () => {
    const { c, run } = cli([fakeHermes()]);
    expect(
      (await run(["fds"])).stdout
        .trim()
        .split(" ")
        .map(Number)
        .filter((fd) => fd > 2).length,
    ).toBeLessThanOrEqual(1); // the listing's own
    expect(c.transport.mode).toBe("server");
    let child = 0;
    const call = c.transport.run({
      args: ["sleep", "30"],
      env: buildCliEnv(opts(), undefined),
      remoteEnv: {},
      timeoutMs: 60_000,
      captureLimit: 1 << 20,
      onSpawn: (pid) => {
        child = pid;
      },
    });
    for (let i = 0; i < 100 && !child; i++) await new Promise((r) => setTimeout(r, 20));
    const server = Number(readFileSync(`/proc/${child}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
    process.kill(server, "SIGKILL");
    await call;
    const gone = async () => {
      for (let i = 0; i < 100; i++) {
        if (!existsSync(`/proc/${child}`) || /\) Z /.test(readFileSync(`/proc/${child}/stat`, "utf8"))) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return false;
    };
    expect(await gone()).toBe(true);
  });
});
