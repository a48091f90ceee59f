// One daemon per seat (issue 38 row 1): a second `run` on a state dir another daemon holds is refused,
// naming the holder — it adopts nothing and kills nothing; the read-only commands still work beside the
// running seat; a daemon killed with SIGKILL leaves no stale lock behind.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { SEAT } from "../helpers/bridge.js";
import { startDaemon, started, stopDaemons } from "../helpers/daemon-process.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { alive, childrenOf, cmdline, untilHost } from "../helpers/steering.js";

let emu: Emu;
afterEach(() => {
  stopDaemons();
  emu?.cleanup();
});

const cli = (...args: string[]) => runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: emu.dir } });

describe("one daemon per seat", () => {
  it("a second daemon on the seat's state dir is refused naming the first; its live agent is left alone and completes once", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("long", { assignee: SEAT, body: "MODE:wait-file" });
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "agent: {kind: command, isolation: {mode: none}}\n");
    const first = startDaemon(emu, [], cfg);
    const agent = await first.waitFor(started);
    const second = await startDaemon(emu, ["--once"], cfg).result;
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain("stateDir:");
    expect(second.stderr).toContain(`is in use by another hermes-bridge daemon: pid ${first.pid} on `);
    expect(second.stderr).toContain(`(config ${cfg})`);
    expect(alive(Number(agent.agent_pid))).toBe(true);
    // read-only commands beside the running seat
    const state = join(emu.dir, "state");
    expect((await cli("status", "--state-dir", state)).exitCode).toBe(0);
    expect((await cli("outbox", "list", "--state-dir", state)).exitCode).toBe(0);
    // …but not a replay, which writes closes
    const replay = await cli("outbox", "replay", "--state-dir", state);
    expect(replay.exitCode).toBe(2);
    expect(replay.stderr).toContain(`pid ${first.pid}`);
    writeFileSync(join((await emu.show(id)).task.workspace_path ?? "", "go"), "");
    await first.waitFor((l) => l.msg === "run finished");
    process.kill(first.pid, "SIGTERM");
    expect((await first.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("a daemon killed with SIGKILL leaves no lock and no watch: the next one starts at once", async () => {
    emu = await Emu.create();
    const first = startDaemon(emu);
    await first.waitFor((l) => l.msg === "hermes-kanban-bridge started");
    // its board `watch` child (the process it started whose command line says watch)
    const watch = await untilHost("the daemon's watch", () => childrenOf(first.pid).find((pid) => cmdline(pid).includes(" watch")));
    process.kill(first.pid, "SIGKILL");
    await first.result;
    // …ends with it (its parent-death signal), not at the next line it writes
    await untilHost("the watch to end with its daemon", () => !alive(watch), 10_000);
    const next = await startDaemon(emu, ["--once"]).result;
    expect(next.exitCode, next.stderr).toBe(0);
  });
});
