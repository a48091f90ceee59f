// The real CLI as a long-running process: SIGKILL mid-run then restart (agent alive → adopted,
// agent dead → blocked), and the signals an operator sends (first drains, second aborts).
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../src/jail/policy.js";
import { killGroup } from "../../src/process/runner.js";
import { jailProcesses } from "../../src/process/terminate.js";
import { SEAT } from "../helpers/bridge.js";
import { activeRunDir, startDaemon, started } from "../helpers/daemon-process.js";
import { Emu } from "../helpers/emulator.js";
import { alive, waitFor } from "../helpers/steering.js";

const BWRAP = (await probeBwrap("bwrap", process.env)).ok || process.env.HKB_REQUIRE_BWRAP !== undefined;

let emu: Emu;
afterEach(() => emu?.cleanup());

const FAKE_CLI = resolve("test/fixtures/agents/fake-cli.mjs");

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

  it("a run whose agent died with the daemon is blocked on restart, fenced on its run", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("casualty", { assignee: SEAT, body: "MODE:wait-file" });
    const first = startDaemon(emu);
    const agent = await first.waitFor(started);
    process.kill(first.pid, "SIGKILL");
    killGroup(Number(agent.agent_pid), "SIGKILL");
    await first.result;
    const r = await startDaemon(emu, ["--once"]).result;
    expect(r.exitCode).toBe(0);
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    const reason = String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason);
    expect(reason).toMatch(/^cause: environment$/m);
    expect(reason).toMatch(/bridge restarted mid-run: run 1 .*had lost its agent process/);
  });

  it.skipIf(!BWRAP)("a jailed agent dies with a SIGKILLed daemon (--die-with-parent): the restart blocks its run", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("jailed casualty", { assignee: SEAT, body: "MODE:wait-file" });
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "agent: {kind: command, isolation: {mode: bwrap}}\n");
    const first = startDaemon(emu, [], cfg);
    const agent = await first.waitFor(started);
    const runDir = activeRunDir(emu);
    process.kill(first.pid, "SIGKILL");
    await first.result;
    await waitFor("the jail to go with the daemon", () => !alive(Number(agent.agent_pid)), 10_000);
    expect((await startDaemon(emu, ["--once"], cfg).result).exitCode).toBe(0);
    // Nothing of the run's jail is left: a namespace init that outlived the outer bwrap (a kill during the
    // jail's set-up) was found by the run dir in its command line and killed by the restart.
    await waitFor("nothing of the jail left", () => jailProcesses(runDir).length === 0, 10_000);
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toMatch(/bridge restarted mid-run: run 1 .*had lost its agent process/);
  });

  it("SIGTERM drains: the hung run is blocked as shutting down and the exit code is 0", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "shutdown: {graceSeconds: 1}\nagent: {kind: command, command: [node]}\n");
    const id = await emu.createTask("hung", { assignee: SEAT, body: "MODE:hang" });
    const d1 = startDaemon(emu, [], cfg);
    await d1.waitFor(started);
    const runDir = activeRunDir(emu);
    process.kill(d1.pid, "SIGTERM");
    const r = await d1.result;
    expect(r.exitCode).toBe(0);
    // Stopped while its jail may still have been setting up: nothing of it is left either way.
    await waitFor("nothing of the jail left", () => jailProcesses(runDir).length === 0, 5000);
    const d = await emu.show(id);
    expect(d.task.status).toBe("blocked");
    expect(String(d.events.findLast((e) => e.kind === "blocked")?.payload?.reason)).toMatch(/shutting down/);
  });

  it("a second SIGINT aborts at once despite a long grace period", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "c.yaml");
    writeFileSync(cfg, "shutdown: {graceSeconds: 3600}\nagent: {kind: command, command: [node]}\n");
    const id = await emu.createTask("hung", { assignee: SEAT, body: "MODE:hang" });
    const d1 = startDaemon(emu, [], cfg);
    await d1.waitFor(started);
    process.kill(d1.pid, "SIGINT");
    await d1.waitFor((l) => l.msg === "stopping: draining in-flight runs");
    process.kill(d1.pid, "SIGINT");
    const r = await d1.result;
    expect(r.exitCode).toBe(0);
    expect((await emu.show(id)).task.status).toBe("blocked");
  });
});
