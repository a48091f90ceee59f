// Issue 38 rows 1, 2 and 4 on the real Hermes CLI (HERMES_BIN; `npm run test:real` runs it on 0.20 and
// 0.21): one daemon per seat (a second is refused naming the first, whose live agent completes once);
// a dir: workspace that is a file blocks before the agent starts; a planned restart (SIGTERM) and a crash
// (SIGKILL, the agent dying with it) continue the task by themselves — nothing blocked, nobody unblocks.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { splitCommand } from "../../src/config/command.js";
import { runBridge, SEAT } from "../helpers/bridge.js";
import { startDaemon, started, stopDaemons } from "../helpers/daemon-process.js";
import { buildStepRestarts, twoRestarts } from "../helpers/restarts.js";
import { Emu } from "../helpers/emulator.js";
import { alive, childrenOf, cmdline, untilHost } from "../helpers/steering.js";

const bin = process.env.HERMES_BIN;
const LONG = ["--ttl", "600"];
let board: Emu | undefined;
afterEach(() => {
  stopDaemons();
  board?.cleanup();
  board = undefined;
});

describe.skipIf(!bin)("the operator's day on the real Hermes CLI", () => {
  it("row 1: a second daemon for the seat is refused naming the first; the first's agent completes once", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const id = await board.createTask("long", { assignee: SEAT, body: "MODE:wait-file" });
    const cfg = join(board.dir, "c.yaml");
    writeFileSync(cfg, "agent: {kind: command, isolation: {mode: none}}\n");
    const first = startDaemon(board, [], cfg);
    const agent = await first.waitFor(started);
    const second = await startDaemon(board, ["--once"], cfg).result;
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain(`is in use by another hermes-bridge daemon: pid ${first.pid} on `);
    expect(alive(Number(agent.agent_pid))).toBe(true);
    writeFileSync(join((await board.show(id)).task.workspace_path ?? "", "go"), "");
    await first.waitFor((l) => l.msg === "run finished");
    process.kill(first.pid, "SIGTERM");
    expect((await first.result).exitCode).toBe(0);
    const d = await board.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
  });

  it("row 2: a dir: workspace that is a file blocks before the agent starts, naming the path", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const projects = join(board.dir, "projects");
    mkdirSync(projects);
    const file = join(projects, "notes.txt");
    writeFileSync(file, "a file\n");
    const id = await board.createTask("file ws", { assignee: SEAT, body: "MODE:complete", workspace: `dir:${file}` });
    const b = await runBridge(board, { base: { workspace: { allowedRoots: [projects] } } });
    await b.daemon.done;
    const d = await board.show(id);
    expect(d.task.status).toBe("blocked");
    expect(String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toContain("exists on this host but is not a directory (a file)");
  });

  it("row 4: a planned restart, then a crash with the agent dying, during one task: it continues by itself, never blocked", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const { doc: d, exitCode } = await twoRestarts(board, "shutdown: {graceSeconds: 0}\nagent: {kind: command, isolation: {mode: none}}\n", LONG);
    expect(exitCode).toBe(0);
    expect(d.task.status).toBe("done");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });
});

describe.skipIf(!bin)("a shell agent's build steps on the real Hermes CLI, default isolation (issue 48 row 1)", () => {
  const SCRIPT = resolve("test/fixtures/agents/build-step.sh");

  it("an 8-s build step whose child holds the agent's stdout ends done", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const id = await board.createTask("a build", { assignee: SEAT, body: "STEP:build" });
    const b = await runBridge(board, { base: { agent: { kind: "command", command: [SCRIPT], killGraceSeconds: 1 } } });
    await b.daemon.done;
    const d = await board.show(id);
    expect(d.task.status, String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toBe("done");
  });

  it("a planned restart and a crash in the middle of the build: done, with no human", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const { doc, exitCode } = await buildStepRestarts(board, SCRIPT, LONG);
    expect(exitCode).toBe(0);
    expect(doc.task.status).toBe("done");
    expect(doc.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("the first daemon's build survives a second daemon started on the seat", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const id = await board.createTask("a long build", { assignee: SEAT, body: "STEP:wait-file" });
    const cfg = join(board.dir, "c.yaml");
    writeFileSync(cfg, `agent: {kind: command, command: [${JSON.stringify(SCRIPT)}], killGraceSeconds: 1}\n`);
    const first = startDaemon(board, LONG, cfg, {}, true);
    await first.waitFor(started);
    expect((await startDaemon(board, ["--once"], cfg, {}, true).result).exitCode).toBe(2);
    writeFileSync(join((await board.show(id)).task.workspace_path ?? "", "go"), "");
    await first.waitFor((l) => l.msg === "run finished");
    process.kill(first.pid, "SIGTERM");
    expect((await first.result).exitCode).toBe(0);
    const d = await board.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
  });
});

describe.skipIf(!bin)("a SIGKILLed seat on the real Hermes CLI (issue 49 row 7)", () => {
  it("leaves no `watch` behind: the real watch (which writes nothing until an event) ends with its daemon", async () => {
    board = await Emu.create("real", { command: splitCommand(bin ?? "") });
    const first = startDaemon(board);
    await first.waitFor((l) => l.msg === "hermes-kanban-bridge started");
    const watch = await untilHost("the daemon's watch", () => childrenOf(first.pid).find((pid) => cmdline(pid).includes(" watch")), 30_000);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    await untilHost("the watch to end with its daemon", () => !alive(watch), 10_000);
  });
});
