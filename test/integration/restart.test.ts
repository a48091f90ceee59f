// The real CLI as a long-running process: SIGKILL mid-run then restart (agent alive → adopted, agent
// dead → continued in the same run, or handed back when too little of the claim is left), and the
// signals an operator sends (the first drains and keeps the claim for the restart, the second aborts) —
// no restart ever blocks a task for a person (issue 38 row 4).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { killGroup } from "../../src/process/runner.js";
import { jailProcesses } from "../../src/process/terminate.js";
import { SEAT } from "../helpers/bridge.js";
import { activeRunDir, startDaemon, started, stopDaemons } from "../helpers/daemon-process.js";
import { twoRestarts } from "../helpers/restarts.js";
import { Emu } from "../helpers/emulator.js";
import { alive, untilHost } from "../helpers/steering.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok || process.env.HKB_REQUIRE_BWRAP !== undefined;

let emu: Emu;
afterEach(() => {
  stopDaemons();
  emu?.cleanup();
});

const FAKE_CLI = resolve("test/fixtures/agents/fake-cli.mjs");
/** A claim long enough to continue in after a restart (the helper's default, 120 s, is not). */
const LONG = ["--ttl", "900"];

describe("restart recovery and signals (real processes)", () => {
  it("a run whose agent survives a SIGKILLed daemon is adopted and completes", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("survivor", { assignee: SEAT, body: "MODE:wait-file" });
    // unjailed: bubblewrap's --die-with-parent takes a jailed agent down with the daemon (the test below)
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "agent: {kind: command, isolation: {mode: none}}\n");
    const first = startDaemon(emu, [], cfg);
    const agent = await first.waitFor(started);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    const second = startDaemon(emu, ["--once"], cfg);
    await second.waitFor((l) => l.msg === "adopting a run that survived a bridge restart");
    const ws = (await emu.show(id)).task.workspace_path ?? "";
    writeFileSync(join(ws, "go"), "");
    const r = await second.result;
    expect(r.exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.summary).toBe("finished after the bridge restarted");
    expect(agent.agent_pid).toBeTypeOf("number");
  });

  it("an adopted Claude Code run reaches its task tools again and completes", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("mcp survivor", { assignee: SEAT, body: "x" });
    const cfg = join(emu.dir, "claude.yaml");
    writeFileSync(
      cfg,
      `agent: {kind: claude-code, command: ["${process.execPath}", "${FAKE_CLI}"], passEnv: [FAKE_CLI, FAKE_SCRIPT], killGraceSeconds: 1, isolation: {mode: none}}\n`,
    );
    const env = { FAKE_CLI: "claude", FAKE_SCRIPT: "wait-then-complete" };
    const first = startDaemon(emu, [], cfg, env, true);
    await first.waitFor(started);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    const second = startDaemon(emu, ["--once"], cfg, env, true);
    await second.waitFor((l) => l.msg === "adopting a run that survived a bridge restart");
    writeFileSync(join((await emu.show(id)).task.workspace_path ?? "", "go"), "");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs.map((r) => r.summary)).toEqual(["completed after the bridge came back"]);
  });

  it("a run whose agent died with the daemon is continued on restart, in the same run — nobody unblocks anything", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("casualty", { assignee: SEAT, body: "MODE:wait-file" });
    const first = startDaemon(emu, LONG);
    const agent = await first.waitFor(started);
    process.kill(first.pid, "SIGKILL");
    killGroup(Number(agent.agent_pid), "SIGKILL");
    await first.result;
    const second = startDaemon(emu, ["--once", ...LONG]);
    const cont = await second.waitFor((l) => l.msg === "continuing a run interrupted by a bridge restart, in the same run");
    expect(cont.why).toBe("a crash (its agent died with the bridge)");
    await second.waitFor(started);
    writeFileSync(join((await emu.show(id)).task.workspace_path ?? "", "go"), "");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it.skipIf(!BWRAP)("a jailed agent dies with a SIGKILLed daemon (--die-with-parent): the restart continues its run", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("jailed casualty", { assignee: SEAT, body: "MODE:wait-file" });
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "agent: {kind: command, isolation: {mode: bwrap}}\n");
    const first = startDaemon(emu, LONG, cfg);
    const agent = await first.waitFor(started);
    const runDir = activeRunDir(emu);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    await untilHost("the jail to go with the daemon", () => !alive(Number(agent.agent_pid)), 10_000);
    const second = startDaemon(emu, ["--once", ...LONG], cfg);
    await second.waitFor((l) => l.msg === "continuing a run interrupted by a bridge restart, in the same run");
    // Nothing of the old run's jail is left: a namespace init that outlived the outer bwrap (a kill during the
    // jail's set-up) was found by the run dir in its command line and killed by the restart.
    await untilHost("nothing of the jail left", () => jailProcesses(runDir).length === 0, 10_000);
    await second.waitFor(started);
    writeFileSync(join((await emu.show(id)).task.workspace_path ?? "", "go"), "");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("SIGTERM: the run is stopped politely and its claim kept with a note; the restart continues it and resumes the session", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("planned restart", { assignee: SEAT, body: "x" });
    const cfg = join(emu.dir, "claude.yaml");
    writeFileSync(
      cfg,
      `shutdown: {graceSeconds: 1}\nagent: {kind: claude-code, command: ["${process.execPath}", "${FAKE_CLI}"], passEnv: [FAKE_CLI, FAKE_SCRIPT], killGraceSeconds: 1}\n`,
    );
    const env = { FAKE_CLI: "claude", FAKE_SCRIPT: "wait-then-complete" };
    const first = startDaemon(emu, LONG, cfg, env, true);
    // the session the restart resumes is known (journaled) before the stop: the id the bridge chose
    const session = String((await first.waitFor((l) => l.msg === "agent session journaled")).session);
    process.kill(first.pid, "SIGTERM");
    expect((await first.result).exitCode).toBe(0);
    const kept = await emu.show(id);
    expect(kept.task.status).toBe("running");
    expect(kept.events.filter((e) => e.kind === "blocked")).toEqual([]);
    expect(String(kept.events.findLast((e) => e.kind === "heartbeat")?.payload?.note)).toMatch(
      new RegExp(`the bridge of seat .* is restarting: it continues this task in this run when it is back, resuming session ${session}`),
    );
    const second = startDaemon(emu, ["--once", ...LONG], cfg, env, true);
    const cont = await second.waitFor((l) => l.msg === "continuing a run interrupted by a bridge restart, in the same run");
    expect(cont.why).toBe("a planned restart");
    await second.waitFor(started);
    writeFileSync(join(kept.task.workspace_path ?? "", "go"), "");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.runs[0]?.summary).toBe(`completed after the bridge came back (resumed ${session})`);
  });

  it("a Claude run cut before its CLI printed a line is resumed: the session id was the bridge's, journaled before the start", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("cut early", { assignee: SEAT, body: "x" });
    const cfg = join(emu.dir, "claude.yaml");
    writeFileSync(
      cfg,
      `agent: {kind: claude-code, command: ["${process.execPath}", "${FAKE_CLI}"], passEnv: [FAKE_CLI, FAKE_SCRIPT, FAKE_QUIET_START], killGraceSeconds: 1}\n`,
    );
    const env = { FAKE_CLI: "claude", FAKE_SCRIPT: "wait-then-complete", FAKE_QUIET_START: "1" };
    const first = startDaemon(emu, LONG, cfg, env, true);
    const session = String((await first.waitFor((l) => l.msg === "agent session journaled")).session);
    const agent = await first.waitFor(started);
    // the CLI has printed nothing: the bridge dies, its agent with it
    process.kill(first.pid, "SIGKILL");
    killGroup(Number(agent.agent_pid), "SIGKILL");
    await first.result;
    const second = startDaemon(emu, ["--once", ...LONG], cfg, env, true);
    await second.waitFor((l) => l.msg === "continuing a run interrupted by a bridge restart, in the same run");
    await second.waitFor(started);
    writeFileSync(join((await emu.show(id)).task.workspace_path ?? "", "go"), "");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("done");
    expect(d.runs[0]?.summary).toBe(`completed after the bridge came back (resumed ${session})`);
  });

  it("two restarts during one task (a planned one, then a crash) never send it to a person", async () => {
    emu = await Emu.create();
    const { doc: d, exitCode } = await twoRestarts(emu, "shutdown: {graceSeconds: 0}\n", LONG);
    expect(exitCode).toBe(0);
    expect(d.task.status).toBe("done");
    expect(d.runs).toHaveLength(1);
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("with too little of the claim left the restart hands the task back; shutdown.inFlight: handback hands it back at once", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("short claim", { assignee: SEAT, body: "MODE:wait-file" });
    // --ttl 120: the deadline is 90 s after the claim, under the 120 s a continued run needs at least
    const first = startDaemon(emu);
    const agent = await first.waitFor(started);
    process.kill(first.pid, "SIGKILL");
    killGroup(Number(agent.agent_pid), "SIGKILL");
    await first.result;
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "shutdown: {graceSeconds: 0, inFlight: handback}\n");
    const second = startDaemon(emu, LONG, cfg);
    await second.waitFor((l) => l.msg === "handed back a run interrupted by a bridge restart (too little of its claim left)");
    // …and this seat claims it again at once (a fresh run, a fresh TTL)
    await second.waitFor(started);
    expect((await emu.show(id)).runs.map((r) => r.status)).toEqual(["reclaimed", "running"]);
    process.kill(second.pid, "SIGTERM");
    expect((await second.result).exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("ready");
    expect(String(d.events.findLast((e) => e.kind === "reclaimed")?.payload?.reason)).toMatch(/stopped: handed back to the lane .*shutdown.inFlight: handback/);
    expect(d.comments.at(-1)?.body).toMatch(/this seat was stopped while it worked on the task/);
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });

  it("a second SIGINT aborts at once despite a long grace period: the claim is kept for the restart", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "shutdown: {graceSeconds: 3600}\nagent: {kind: command, command: [node]}\n");
    const id = await emu.createTask("hung", { assignee: SEAT, body: "MODE:hang" });
    const d1 = startDaemon(emu, [], cfg);
    await d1.waitFor(started);
    const runDir = activeRunDir(emu);
    process.kill(d1.pid, "SIGINT");
    await d1.waitFor((l) => l.msg === "stopping: draining in-flight runs");
    process.kill(d1.pid, "SIGINT");
    const r = await d1.result;
    expect(r.exitCode).toBe(0);
    await untilHost("nothing of the jail left", () => jailProcesses(runDir).length === 0, 5000);
    const d = await emu.show(id);
    expect(d.task.status).toBe("running");
    expect(d.events.filter((e) => e.kind === "blocked")).toEqual([]);
  });
});
