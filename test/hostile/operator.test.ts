// What an operator (or a careless config) runs into: unknown keys, a webhook that never answers, a
// named secret that is not set, secrets in the environment and in prose, a usage-limit pause across a
// restart, a hermes command that does not exist, and the commands that need no agent settings.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { AGENT, runBridge, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const cli = (args: string[], env: Record<string, string> = {}) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: emu.dir, ...env }, timeoutMs: 60_000 });
const board = () => ["--board", "bridge", "--assignee", SEAT, "--hermes", `${process.execPath} ${emu.command[1]}`, "--hermes-home", emu.home];

describe("config", () => {
  it("an unknown key is an error with a did-you-mean (exit 2, the key path)", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "c.yaml");
    (await import("node:fs")).writeFileSync(cfg, `concurency: 4\nagent: {command: [x]}\n`);
    const r = await cli(["run", "--config", cfg, ...board()]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("concurency: unknown key — did you mean 'concurrency'?");
  });

  it("a webhook secret named but not set: run exits 2 and doctor fails", async () => {
    emu = await Emu.create();
    const cfg = join(emu.dir, "c.yaml");
    (await import("node:fs")).writeFileSync(cfg, `webhook: {url: "http://127.0.0.1:9/hook", secretEnv: HOOK_SECRET}\nagent: {command: [x]}\n`);
    const run = await cli(["run", "--once", "--config", cfg, ...board(), "--state-dir", join(emu.dir, "s")]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/webhook.secretEnv: names HOOK_SECRET, which is not set/);
    const doc = await cli(["doctor", "--config", cfg, ...board(), "--state-dir", join(emu.dir, "s")]);
    expect(doc.exitCode).toBe(1);
    expect(doc.stdout).toMatch(/^config\s+FAIL\s+webhook.secretEnv/m);
  });

  it("a hermes command that does not exist fails fast, with the doctor hint", async () => {
    emu = await Emu.create();
    const t0 = performance.now();
    const r = await cli([
      "run",
      "--once",
      "--board",
      "bridge",
      "--assignee",
      SEAT,
      "--hermes",
      "/nonexistent/hermes",
      "--agent-command",
      "true",
      "--state-dir",
      join(emu.dir, "s"),
    ]);
    expect(performance.now() - t0).toBeLessThan(20_000);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/'\/nonexistent\/hermes' cannot be started \(ENOENT\).*hermes-bridge doctor/);
  });
});

describe("alerts and secrets", () => {
  it("a webhook that never answers does not hold the seat: the next task is worked at once", async () => {
    emu = await Emu.create();
    const sockets: import("node:net").Socket[] = [];
    const hang = createServer(() => undefined);
    hang.on("connection", (s) => sockets.push(s));
    await new Promise<void>((r) => hang.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(hang.address() as AddressInfo).port}/hook`;
    try {
      const a = await emu.createTask("fails to close", { assignee: SEAT, body: "MODE:complete", priority: 9 });
      const b2 = await emu.createTask("next", { assignee: SEAT, body: "MODE:complete" });
      const b = await runBridge(emu, { once: false, faults: "complete:transient:4", base: { webhook: { url, timeoutSeconds: 30, retries: 3 } } });
      let closed = 0;
      await new Promise<void>((r) =>
        b.daemon.on("run:closed", () => {
          closed += 1;
          if (closed === 2) r();
        }),
      );
      expect((await emu.show(b2)).task.status).toBe("done");
      expect((await emu.show(a)).task.status).toBe("running");
      expect(b.built.alerts.backlog).toBe(1);
      await b.daemon.kill();
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => hang.close(r));
    }
  });

  it("secret-looking variables of the bridge's environment and 'password is X' never reach the board; PWD stays", async () => {
    emu = await Emu.create();
    const key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    const id = await emu.createTask("leak", { assignee: SEAT, body: "MODE:leak" });
    await (
      await runBridge(emu, {
        env: { AWS_SECRET_ACCESS_KEY: key },
        base: { agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["AWS_SECRET_ACCESS_KEY"] } },
      })
    ).daemon.done;
    const doc = JSON.stringify(await emu.show(id));
    expect(doc).not.toContain(key);
    expect(doc).not.toContain("hunter2");
    expect(doc).toContain("PWD=/home/dev/project");
  });
});

describe("seat state and operator commands", () => {
  it("a usage-limit pause survives a restart; status shows it with its reset time", async () => {
    emu = await Emu.create();
    await emu.createTask("limited", { assignee: SEAT, body: "MODE:limit" });
    const first = await runBridge(emu, {
      env: { FIXTURE_RESET_MS: "3600000" },
      base: { agent: { kind: "command", command: [process.execPath, AGENT], passEnv: ["FIXTURE_RESET_MS"], check: ["sh", "-c", "exit 75"] } },
    });
    await first.daemon.done;
    const later = await emu.createTask("after restart", { assignee: SEAT, body: "MODE:complete" });
    const second = await runBridge(emu);
    await second.daemon.done;
    expect((await emu.show(later)).task.status).toBe("ready");
    const st = await cli(["status", "--state-dir", join(emu.dir, "state"), "--board", "bridge", "--assignee", SEAT]);
    expect(st.exitCode).toBe(0);
    expect(st.stdout).toMatch(/PAUSED until 20\d\d-.*usage limit \(usage\)/);
    expect(st.stdout).toMatch(/NOT RUNNING/);
  });

  it("status and outbox need no agent settings; --version prints the version", async () => {
    emu = await Emu.create();
    await (await runBridge(emu)).daemon.done;
    const flags = ["--state-dir", join(emu.dir, "state"), "--board", "bridge", "--assignee", SEAT];
    expect((await cli(["status", ...flags])).exitCode).toBe(0);
    const ob = await cli(["outbox", "list", ...flags]);
    expect(ob.exitCode).toBe(0);
    expect(ob.stdout).toMatch(/outbox empty/);
    const v = await cli(["--version"]);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await cli(["run", "--help"]);
    expect(help.stdout.replace(/\s+/g, " ")).toContain("agent kind: command | claude-code | codex | local-llm");
  });
});
