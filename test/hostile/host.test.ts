// The seat host is not the task writer's: a state dir others can write is refused; a planted
// active-run entry cannot make the bridge read or delete outside the state dir; a task cannot put the
// agent outside the allowed roots (dir:/etc) or run body commands; background children die with the
// agent; a long state dir does not break tool sockets; a run that cannot start is blocked, not stranded.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runProcess } from "../../src/process/runner.js";
import { processStartTime } from "../../src/process/liveness.js";
import { hasAllFields } from "../../src/result/template.js";
import { AGENT, runArgv, runBridge, SEAT } from "../helpers/bridge.js";
import { CLI_BIN, Emu } from "../helpers/emulator.js";
import { OpenAiMock } from "../helpers/openai-mock.js";

let emu: Emu;
afterEach(() => emu?.cleanup());

const FAKE = resolve("test/fixtures/agents/fake-cli.mjs");
const reasonOf = async (id: string) => String((await emu.show(id)).events.findLast((e) => e.kind === "blocked")?.payload?.reason ?? "");
const cli = (args: string[], env: Record<string, string> = {}) =>
  runProcess({ argv: [process.execPath, CLI_BIN, ...args], env: { PATH: process.env.PATH ?? "", HOME: emu.dir, ...env }, timeoutMs: 60_000 });
const runArgs = (stateDir: string) => runArgv(emu, stateDir, { once: true });

describe("state dir trust", () => {
  it("a group- or other-writable state dir is refused at start (exit 2, named)", async () => {
    emu = await Emu.create();
    const dir = join(emu.dir, "shared-state");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o777);
    const r = await cli(runArgs(dir));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/stateDir: .*shared-state is writable by its group \(mode 777\)/);
  });

  it("row 11: a 0700 state dir under a parent others can write (not sticky) is refused; under a sticky one it is ours and accepted", async () => {
    emu = await Emu.create();
    const open = join(emu.dir, "open-parent");
    mkdirSync(open);
    chmodSync(open, 0o777);
    const dir = join(open, "state");
    mkdirSync(dir, { mode: 0o700 });
    const r = await cli(runArgs(dir));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/stateDir: .*open-parent\/state has a parent directory .*open-parent that is writable by its group \(mode 777\)/);
    chmodSync(open, 0o1777);
    const ok = await cli(runArgs(dir));
    expect(ok.stderr).not.toMatch(/stateDir/);
    expect(ok.exitCode).toBe(0);
  });

  it("a planted active-run entry cannot make the bridge remove or read outside the state dir", async () => {
    emu = await Emu.create();
    const state = join(emu.dir, "state");
    mkdirSync(join(state, "active"), { recursive: true, mode: 0o700 });
    chmodSync(state, 0o700);
    const victim = join(emu.dir, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "keep.txt"), "keep me");
    const secret = join(emu.dir, "root-only");
    writeFileSync(secret, "SECRET-PLANTED-9876", { mode: 0o600 });
    const id = await emu.createTask("planted", { assignee: SEAT, body: "MODE:complete" });
    writeFileSync(
      join(state, "active", `bridge__${id}.json`),
      JSON.stringify({
        board: "bridge",
        task: id,
        runId: 1,
        traceId: "x",
        pid: process.pid,
        pidStart: processStartTime(process.pid),
        pgid: process.pid,
        workspace: "/tmp",
        localWorkspace: "/tmp",
        deadline: 0,
        claimedAt: 0,
        ttlSeconds: 900,
        resultFile: secret,
        runDir: victim,
        agent: "command",
      }),
    );
    const r = await cli(runArgs(state));
    expect(existsSync(join(victim, "keep.txt"))).toBe(true);
    expect(JSON.stringify(await emu.show(id))).not.toContain("SECRET-PLANTED-9876");
    expect(r.stdout).toMatch(/state file not trusted: quarantined/);
    expect(readFileSync(secret, "utf8")).toBe("SECRET-PLANTED-9876");
    // the task itself was worked normally
    expect((await emu.show(id)).task.status).toBe("done");
  });
});

describe("task text is data", () => {
  it("a dir:/etc workspace is blocked before the agent starts, naming the path and the setting", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("etc", { assignee: SEAT, body: "MODE:complete", workspace: "dir:/etc" });
    await (await runBridge(emu)).daemon.done;
    const r = await reasonOf(id);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/workspace\.allowedRoots/);
    expect(r).toMatch(/\/etc is outside the allowed roots/);
    expect(existsSync("/etc/out.txt")).toBe(false);
  });

  it("body verification commands do not run by default", async () => {
    emu = await Emu.create();
    const marker = join(emu.dir, "owned");
    await emu.createTask("body", { assignee: SEAT, body: `MODE:complete\n\n## Verification\n\`\`\`sh\ntouch ${marker}\n\`\`\`\n` });
    await (await runBridge(emu)).daemon.done;
    expect(existsSync(marker)).toBe(false);
  });
});

describe("processes and sockets", () => {
  it("background children of the agent are stopped when it exits", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("bg", { assignee: SEAT, body: "MODE:background" });
    // A duration of this run's own: a child some other run left behind is not mistaken for ours.
    const secs = String(4000 + Math.floor(Math.random() * 100_000));
    await (
      await runBridge(emu, {
        env: { FIXTURE_BG_SECONDS: secs },
        base: { agent: { kind: "command", command: [process.execPath, AGENT], killGraceSeconds: 1, passEnv: ["FIXTURE_BG_SECONDS"] } },
      })
    ).daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
    // The agent's background child is stopped with the agent's group; its end is read until the
    // kernel has it gone (bounded), not at one instant.
    const { execFileSync } = await import("node:child_process");
    const left = () =>
      execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.trim() === `sleep ${secs}`);
    for (let i = 0; i < 100 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(left()).toEqual([]);
  });

  it("a tool-using agent works under a state dir far longer than a socket path allows", async () => {
    emu = await Emu.create();
    const long = join(emu.dir, "a-very-long-state-directory-name-to-push-the-socket-path-past-the-limit", "seat");
    const id = await emu.createTask("long", { assignee: SEAT, body: "x" });
    const b = await runBridge(emu, {
      env: { FAKE_CLI: "claude", FAKE_SCRIPT: "complete" },
      base: { stateDir: long, agent: { kind: "claude-code", command: [process.execPath, FAKE], passEnv: ["FAKE_CLI", "FAKE_SCRIPT"], killGraceSeconds: 1 } },
    });
    await b.daemon.done;
    expect((await emu.show(id)).task.status).toBe("done");
  });

  it("a run that cannot start (the local model's prompt file is missing) is blocked, not left running", async () => {
    emu = await Emu.create();
    const id = await emu.createTask("no prompt", { assignee: SEAT, body: "x" });
    const mock = await OpenAiMock.start([]);
    try {
      const b = await runBridge(emu, {
        base: { agent: { kind: "local-llm", baseUrl: mock.baseUrl, model: "mock-coder", promptFile: join(emu.dir, "missing.md") } },
      });
      await b.daemon.done;
    } finally {
      await mock.close();
    }
    const r = await reasonOf(id);
    expect(hasAllFields(r)).toBe(true);
    expect(r).toMatch(/the agent could not run: .*missing\.md/);
  });

  it("--once exits non-zero when a claimed task could not be closed", async () => {
    emu = await Emu.create();
    await emu.createTask("d", { assignee: SEAT, body: "MODE:complete" });
    const args = runArgs(join(emu.dir, "state"));
    // every complete fails transiently on the board; no webhook: the close is a dead letter
    args[args.indexOf("--hermes") + 1] = `env HERMES_EMULATOR_FAULTS=complete:transient ${process.execPath} ${emu.command[1]}`;
    // retried quickly (the default waits 0.5–8 s between tries): what is tested is the end, not the waits
    const cfg = join(emu.dir, "quick-retries.yaml");
    writeFileSync(cfg, "hermes: {retry: {retries: 2, minDelayMs: 20, maxDelayMs: 50}}\n");
    const r = await cli([...args, "--config", cfg, "--log-format", "json"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/"close":"dead"/);
  });
});
