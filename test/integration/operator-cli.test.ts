// Commands an operator can trust (the compiled CLI, real processes): `run --once` fails when the seat
// could not work, the state-dir commands need only --state-dir, each --help lists its own flags, a
// missing hermes program and a taken port are named for what they are, unknown HERMES_BRIDGE_*
// variables are warned about.
import { chmodSync, writeFileSync } from "node:fs";
import { passableTempDir } from "../helpers/tmp.js";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { AGENT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

const cli = (args: string[], env: Record<string, string> = {}) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env }, timeoutMs: 90_000 });

let emu: Emu | undefined;
afterEach(() => {
  emu?.cleanup();
  emu = undefined;
});

const script = (dir: string, name: string, body: string) => {
  const f = join(dir, name);
  writeFileSync(f, `#!/bin/sh\n${body}\n`);
  chmodSync(f, 0o755);
  return f;
};

/** A seat on the emulator board: `run` flags (the board's home through the variable, as an operator's unit file would). */
function seat(e: Emu, stateDir: string, more: string[] = []) {
  return {
    args: ["--board", "bridge", "--assignee", "ops-seat", "--hermes", `${process.execPath} ${e.command[1]}`, "--state-dir", stateDir, ...more],
    env: { HERMES_BRIDGE_HERMES_HOME: e.home, HERMES_BRIDGE_LOG_FORMAT: "json" },
  };
}

describe("run --once tells cron whether the seat could work", () => {
  it("exits 1 when the agent's pre-flight failed (not logged in): nothing claimed", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("for a logged-out seat", { assignee: "ops-seat", body: "MODE:complete" });
    const claude = script(emu.dir, "claude", 'if [ "$1 $2" = "auth status" ]; then echo \'{"loggedIn": false}\'; exit 1; fi; exit 3');
    const s = seat(emu, join(emu.dir, "st"), ["--agent", "claude-code", "--agent-command", claude]);
    const r = await cli(["run", "--once", ...s.args], s.env);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/run --once: the seat could not work and claimed nothing: agent authentication failed .*auth status/);
    expect(r.stderr).toContain("CLAUDE_CONFIG_DIR=");
    expect((await emu.show(id)).task.status).toBe("ready");
    const st = await cli(["status", "--state-dir", join(emu.dir, "st")]);
    expect(st.stdout).toMatch(/— PAUSED until an operator fixes it \(agent authentication failed/);
    expect(st.stdout).toMatch(/^fix: log this seat in — a Claude subscription \(a browser sign-in\): CLAUDE_CONFIG_DIR=/m);
  });

  it("exits non-zero when the board cannot be reached, and names a missing hermes program as missing", async () => {
    const dir = passableTempDir("hkb-ops-");
    const base = ["--board", "bridge", "--assignee", "ops-seat", "--agent", "command", "--agent-command", `${process.execPath} ${AGENT}`];
    const missing = await cli(["run", "--once", ...base, "--hermes", `python3 ${join(dir, "no-such-hermes")}`, "--state-dir", join(dir, "a")]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stderr).toContain(`the hermes program ${join(dir, "no-such-hermes")} does not exist`);
    expect(missing.stderr).not.toContain("rejected the arguments");
    // the command's own line names each cause once
    const said = missing.stderr.split("\n").find((l) => l.startsWith("hermes-bridge: ")) ?? "";
    expect(said.split(`the hermes program ${join(dir, "no-such-hermes")} does not exist`).length - 1).toBe(1);
    // a board host that refuses: five failed scans (no retries inside a call here, to keep it short)
    const down = script(dir, "hermes-over-ssh", 'echo "ssh: connect to host board-host port 22: Connection refused" >&2; exit 255');
    const cfg = join(dir, "seat.yaml");
    writeFileSync(cfg, "hermes: {retry: {retries: 0, minDelayMs: 20, maxDelayMs: 100}}\n");
    const unreachable = await cli(["run", "--once", "--config", cfg, ...base, "--hermes", down, "--state-dir", join(dir, "b")]);
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toMatch(/hermes-bridge: the bridge stopped: board bridge kept failing: .*Connection refused/);
  }, 90_000);
});

describe("the commands that read a seat's state need only --state-dir", () => {
  it("status, outbox list|replay, usage and fleet, after the seat ran (its recorded settings)", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("a task", { assignee: "ops-seat", body: "MODE:complete" });
    const stateDir = join(emu.dir, "seats", "ops-seat");
    const s = seat(emu, stateDir, ["--agent", "command", "--agent-command", `${process.execPath} ${AGENT}`]);
    expect((await cli(["run", "--once", ...s.args], s.env)).exitCode).toBe(0);
    expect((await emu.show(id)).task.status).toBe("done");
    const only = ["--state-dir", stateDir];
    const list = await cli(["outbox", "list", ...only]);
    expect(list.stderr).toBe("");
    expect([list.exitCode, list.stdout]).toEqual([0, `outbox empty (${join(stateDir, "outbox.jsonl")})\n`]);
    const replay = await cli(["outbox", "replay", ...only]);
    expect([replay.exitCode, replay.stdout]).toEqual([0, "nothing to replay\n"]);
    const status = await cli(["status", ...only]);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toMatch(/\(lane ops-seat, command\) on bridge — idle, claiming ready tasks/);
    // usage reads the board: the seat's hermes command, home and boards come from its recorded settings
    const usage = await cli(["usage", ...only, "--json", "--since", "1h"]);
    expect(usage.exitCode).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({ boards: ["bridge"], total: { runs: 1 } });
    const fleet = await cli(["fleet", ...only, "--json"]);
    expect(fleet.exitCode).toBe(0);
    expect((JSON.parse(fleet.stdout) as { seats: { source: string }[] }).seats.map((x) => x.source)).toEqual([stateDir]);
    // without a recorded seat, a command that reads the board says what it needs
    const none = await cli(["usage", "--state-dir", join(emu.dir, "never-ran")]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("usage reads the board's records: name the board");
  });

  it("an unknown HERMES_BRIDGE_* variable is warned about, with what was meant", async () => {
    const dir = passableTempDir("hkb-ops-");
    const r = await cli(["outbox", "list", "--state-dir", join(dir, "s")], { HERMES_BRIDGE_STATE_DIRR: "/x", HERMES_BRIDGE_CLAIM_TTL_SECONDS: "60" });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain("hermes-bridge: warning: HERMES_BRIDGE_STATE_DIRR is not a setting the bridge reads — did you mean HERMES_BRIDGE_STATE_DIR?");
    expect(r.stderr).toContain("HERMES_BRIDGE_CLAIM_TTL_SECONDS is not a setting the bridge reads — claim.ttlSeconds is set by HERMES_BRIDGE_TTL (or --ttl)");
  });
});

describe("help and settings errors", () => {
  it("each command's --help lists its own flags", async () => {
    const help = async (...args: string[]) => (await cli([...args, "--help"])).stdout;
    const list = await help("outbox", "list");
    expect(list).toContain("--state-dir");
    expect(list).toContain("--json");
    for (const other of ["--agent-command", "--ttl", "--heartbeat-interval", "--webhook-url", "--concurrency"]) expect(list).not.toContain(other);
    const status = await help("status");
    expect(status).toContain("--http-port");
    expect(status).not.toContain("--agent ");
    const usage = await help("usage");
    expect(usage).toContain("--board");
    expect(usage).toContain("--since");
    expect(usage).not.toContain("--ttl");
    const run = await help("run");
    for (const f of ["--agent-command", "--ttl", "--http-port", "--once"]) expect(run).toContain(f);
  });

  it("a taken port is named as http.port (and how it was set); a missing key is required", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", () => r()));
    const port = (taken.address() as { port: number }).port;
    try {
      emu = await Emu.create();
      const s = seat(emu, join(emu.dir, "st"), ["--agent", "command", "--agent-command", `${process.execPath} ${AGENT}`, "--http-port", String(port)]);
      const r = await cli(["run", "--once", ...s.args], s.env);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(`http.port: ${port} is already in use on 127.0.0.1 (set by --http-port ${port})`);
    } finally {
      await new Promise<void>((r) => taken.close(() => r()));
    }
    const missing = await cli(["run", "--once", "--assignee", "x", "--agent", "command", "--agent-command", "true"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain("boards: is required (in the config file, or --board / HERMES_BRIDGE_BOARD)");
    expect(missing.stderr).not.toContain("received undefined");
  });
});
