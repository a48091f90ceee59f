// The product CLI as a user runs it (the compiled bin, a real process).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Outbox } from "../../src/outbox/outbox.js";
import { runProcess } from "../../src/process/runner.js";
import { AGENT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

const cli = (args: string[], env: Record<string, string> = {}) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env }, timeoutMs: 170_000 });

describe("hermes-bridge CLI", () => {
  it("exits 2 naming the key path of a bad value", async () => {
    const f = join(mkdtempSync(join(tmpdir(), "hkb-cli-")), "c.yaml");
    writeFileSync(f, "boards: [bridge]\nassignee: seat\nagent: {kind: command, command: [x]}\nclaim: {ttlSeconds: -3}\n");
    const r = await cli(["run", "--config", f, "--once"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/claim\.ttlSeconds: /);
  });

  it("run --once from flags and env, then outbox list", async () => {
    const emu = await Emu.create();
    try {
      const id = await emu.createTask("cli task", { assignee: "cli-seat", body: "MODE:complete" });
      const flags = [
        "--board",
        "bridge",
        "--assignee",
        "cli-seat",
        "--hermes",
        `${process.execPath} ${emu.command[1]}`,
        "--agent",
        "command",
        "--state-dir",
        join(emu.dir, "st"),
      ];
      const r = await cli(["run", "--once", ...flags, "--agent-command", `${process.execPath} ${AGENT}`, "--ttl", "120", "--heartbeat-interval", "5"], {
        HERMES_BRIDGE_HERMES_HOME: emu.home,
        HERMES_BRIDGE_LOG_FORMAT: "json",
      });
      expect(r.exitCode).toBe(0);
      const lines = r.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(lines.some((l) => l.msg === "run finished" && l.task_id === id && l.close === "applied" && typeof l.trace_id === "string")).toBe(true);
      expect((await emu.show(id)).task.status).toBe("done");
      const list = await cli(["outbox", "list", ...flags, "--agent-command", "true"], { HERMES_BRIDGE_HERMES_HOME: emu.home });
      expect(list.exitCode).toBe(0);
      expect(list.stdout).toMatch(/^outbox empty/);
    } finally {
      emu.cleanup();
    }
  });

  it("outbox ack and drop: a person settles an entry with a reason; it leaves the list and the backlog, journaled", async () => {
    const emu = await Emu.create();
    try {
      const state = join(emu.dir, "st");
      const flags = [
        "--board",
        "bridge",
        "--assignee",
        "cli-seat",
        "--hermes",
        `${process.execPath} ${emu.command[1]}`,
        "--state-dir",
        state,
        "--agent-command",
        "true",
      ];
      const env = { HERMES_BRIDGE_HERMES_HOME: emu.home };
      // two closes that did not land (a close that failed, a lost lease), as a seat leaves them
      const outbox = new Outbox(state);
      const base = { board: "bridge", runId: 3, traceId: "tr", seat: "cli-seat", workspace: "/w" };
      const failed = outbox.record({ ...base, taskId: "t_aa", intent: { type: "complete", summary: "s", metadata: {} } });
      outbox.mark(failed.id, "dead", { error: "the board was down" });
      const lost = outbox.record({ ...base, taskId: "t_bb", intent: { type: "block", reason: "r" } });
      outbox.mark(lost.id, "lease_lost", { alerted: false, error: "lease lost" });
      expect(outbox.backlog()).toBe(2);
      const noReason = await cli(["outbox", "ack", failed.id, ...flags], env);
      expect(noReason.exitCode).toBe(2);
      expect(noReason.stdout).toMatch(/--reason is required/);
      const ack = await cli(["outbox", "ack", failed.id.slice(0, 8), "--reason", "applied by hand on the board", ...flags], env);
      expect(ack.exitCode, ack.stdout + ack.stderr).toBe(0);
      expect(ack.stdout).toContain(`acknowledged ${failed.id} (bridge/t_aa run 3 complete, was dead): applied by hand on the board`);
      const drop = await cli(["outbox", "drop", lost.id, "--reason", "the task was redone", ...flags], env);
      expect(drop.exitCode).toBe(0);
      const again = await cli(["outbox", "drop", lost.id, "--reason", "twice", ...flags], env);
      expect(again.exitCode).toBe(2);
      expect(again.stdout).toContain("is dropped: nothing to settle");
      const unknown = await cli(["outbox", "ack", "ffffffff", "--reason", "x", ...flags], env);
      expect(unknown.exitCode).toBe(2);
      expect(unknown.stdout).toContain('no outbox entry "ffffffff"');
      expect((await cli(["outbox", "list", ...flags], env)).stdout).toMatch(/^outbox empty/);
      expect(outbox.backlog()).toBe(0);
      expect(outbox.entries().map((e) => [e.state, e.note])).toEqual([
        ["acknowledged", expect.stringMatching(/^acknowledged by \S+: applied by hand on the board$/)],
        ["dropped", expect.stringMatching(/^dropped by \S+: the task was redone$/)],
      ]);
    } finally {
      emu.cleanup();
    }
  });

  it("the demo (the README's first command) runs end to end", async () => {
    const r = await cli(["demo"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/Write a greeting file\s+done/);
    expect(r.stdout).toMatch(/Add a license\s+blocked/);
    expect(r.stdout).toMatch(/Run a flaky tool\s+blocked/);
    expect(r.stdout).toMatch(/lease_lost/);
  }, 180_000);
});
